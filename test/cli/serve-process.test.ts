/**
 * `a2a-once serve` as a user starts it (the built CLI, dist/): it says what it serves and how to stop it, uses
 * the fixed default port without `--port`, and fails to start in one line (a stack only with A2A_ONCE_DEBUG=1).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteTaskStore } from '../../src/store/sqlite/index.js';
import { makeTask } from '../store-contract/fixtures/tasks.js';
import { DEFAULT_PORT } from '../../src/cli/commands/serve.js';
import { CLI_PATH, cliBuilt, startServe } from '../processes/serve-process.js';
import { until } from '../processes/lost-replica.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-cli-serve-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `serve args` until it prints its URL or exits; stops it if it started. */
function serveBriefly(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI_PATH, 'serve', ...args], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    if (stdout.includes('listening on')) child.kill('SIGTERM');
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

describe.skipIf(!cliBuilt)('a2a-once serve, started by hand', () => {
  it('says which agent and store it serves, where its card is, and how to stop it', async () => {
    const db = join(dir, 'said.db');
    const serve = await startServe(['--agent', 'echo', '--store', `sqlite:${db}`], dir);
    try {
      // stderr and stdout are separate pipes: the lines on stderr may arrive after the URL on stdout.
      await until(() => serve.stderr().includes('Ctrl+C'));
      const said = serve.stderr();
      expect(said).toContain(`a2a-once serve: agent echo, store sqlite:${db} (${db})`);
      expect(said).toContain(`a2a-once serve: card at ${serve.url}/.well-known/agent-card.json`);
      expect(said).toMatch(/Ctrl\+C/);
    } finally {
      await serve.stop();
    }
  }, 20_000);

  it('answers a body that is not JSON with 400 by default and 415 with --refused-content-type-status 415', async () => {
    for (const [flags, status] of [
      [[], 400],
      [['--refused-content-type-status', '415'], 415],
    ] as const) {
      const serve = await startServe(['--agent', 'tck', '--store', 'memory', '--port', '0', ...flags], dir);
      try {
        const res = await fetch(`${serve.url}/message:send`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain', 'a2a-version': '1.0' },
          body: 'hello',
        });
        expect(res.status).toBe(status);
        const body = (await res.json()) as { error?: { details?: { reason?: string }[] } };
        expect(body.error?.details?.some((d) => d.reason === 'CONTENT_TYPE_NOT_SUPPORTED')).toBe(true);
      } finally {
        await serve.stop();
      }
    }
    const bad = await serveBriefly([
      '--store',
      'memory',
      '--port',
      '0',
      '--refused-content-type-status',
      '418',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/refused-content-type-status/);
  }, 40_000);

  it(`listens on port ${DEFAULT_PORT} without --port (or says that port is taken)`, async () => {
    const r = await serveBriefly(['--store', 'memory']);
    const listening = r.stdout.includes(`a2a-once listening on http://127.0.0.1:${DEFAULT_PORT}`);
    const taken = r.stderr.includes(
      `a2a-once serve: port ${DEFAULT_PORT} on 127.0.0.1 is in use: pick another with --port N`,
    );
    expect(listening || taken, r.stderr).toBe(true);
  }, 20_000);

  it('a port in use: exit 1, one line saying so, no stack', async () => {
    const first = await startServe(['--store', 'memory'], dir);
    try {
      const port = new URL(first.url).port;
      const r = await serveBriefly(['--store', 'memory', '--port', port]);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trim().split('\n');
      expect(lines.at(-1)).toBe(
        `a2a-once serve: port ${port} on 127.0.0.1 is in use: pick another with --port N, or --port 0 for any free port`,
      );
      expect(r.stderr).not.toMatch(/^\s+at /m);

      const debug = await serveBriefly(['--store', 'memory', '--port', port], {
        ...process.env,
        A2A_ONCE_DEBUG: '1',
      });
      expect(debug.code).toBe(1);
      expect(debug.stderr).toMatch(/^\s+at /m);
    } finally {
      await first.stop();
    }
  }, 30_000);

  it('a port in use is found before the store is opened (nothing created, nothing recovered)', async () => {
    const first = await startServe(['--store', 'memory'], dir);
    try {
      const port = new URL(first.url).port;
      const db = join(dir, 'never-opened.db');
      const r = await serveBriefly(['--store', `sqlite:${db}`, '--port', port]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`port ${port} on 127.0.0.1 is in use`);
      expect(r.stderr).not.toContain('recovered');
      expect(existsSync(db)).toBe(false);
    } finally {
      await first.stop();
    }
  }, 30_000);

  it('start-up says how many tasks another process still leases, and when they are looked at again', async () => {
    const db = join(dir, 'still-leased.db');
    const other = new SqliteTaskStore({ path: db });
    await other.migrate();
    for (const id of ['held-1', 'held-2'])
      await other.createTask(
        { tenant: '', owner: '' },
        { task: makeTask(id), lease: { owner: 'a-killed-process', ttlMs: 120_000 } },
      );
    await other.close();
    const serve = await startServe(['--store', `sqlite:${db}`, '--port', '0', '--lease', '30s'], dir);
    try {
      await until(() => serve.stderr().includes('on start-up'));
      // The lease has 120 s left when it is written; a loaded machine takes seconds to start the process.
      expect(serve.stderr()).toMatch(
        /a2a-once recovered 0 task\(s\) on start-up: 0 resumed, 0 failed; 2 task\(s\) still leased by another process \(a replica, or the run before this one\); the first lease lapses in (1[01]\d|120) s \(recovery looks every 15 s\)/,
      );
    } finally {
      await serve.stop();
    }
  }, 30_000);
});
