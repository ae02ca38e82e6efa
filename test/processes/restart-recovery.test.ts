/**
 * `a2a-once serve` recovers at start-up what it left running when it was killed (docs/semantics.md §4, ADR 0037):
 * kill -9 a `serve --agent slow` mid-task, start it again on the same (default SQLite) store, and the task
 * completes, its effect made once; the start-up line says what was recovered. `--lease` is validated.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectCompletedOnce, startSlowTask, until } from './lost-replica.js';
import { CLI_PATH, cliBuilt, startServe } from './serve-process.js';
import { sendForTask } from './wire.js';

describe.skipIf(!cliBuilt)('serve recovers at start-up', () => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-once-restart-recovery-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('resumes the task a killed server left running, which completes with its effect made once', async () => {
    const log = join(dir, 'effects.log');
    const args = ['--agent', 'slow', '--delay-ms', '1500', '--lease', '1s', '--effects-log', log];
    const first = await startServe(args, dir);
    const { message, taskId } = await startSlowTask(first, log, 'survive a restart');
    await first.kill9();
    await new Promise((r) => setTimeout(r, 1200)); // past the 1 s lease: start-up recovery takes it

    const second = await startServe(args, dir);
    try {
      await until(() =>
        second.stderr().includes('a2a-once recovered 1 task(s) on start-up: 1 resumed, 0 failed'),
      );
      const retried = await sendForTask(second.url, message);
      expect(retried.id).toBe(taskId);
      expectCompletedOnce(retried, 'survive a restart', [log]);
    } finally {
      await second.stop();
    }
  }, 60_000);

  it.each([
    ['0s', /--lease must be at least 10ms/],
    ['5ms', /--lease must be at least 10ms/],
    ['soon', /not a duration: 'soon'/],
  ])('refuses --lease %s with exit code 2', async (lease, message) => {
    const child = spawn(process.execPath, [CLI_PATH, 'serve', '--store', 'memory', '--lease', lease], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });
});
