/**
 * `a2a-once serve` defaults to SQLite in ./a2a-once.db, so a server killed with SIGKILL and
 * restarted still replays the keys it claimed before: the retry runs nothing.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mintKey, setKey } from '../../src/idempotency/index.js';
import { countEffects } from '../../src/cli/agents/index.js';
import { cliBuilt, startServe } from './serve-process.js';
import { sendForTask, userMessage } from './wire.js';

describe.skipIf(!cliBuilt)('restart on the default SQLite store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-once-restart-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('replays a key claimed before kill -9 after the restart, running nothing', async () => {
    const log = join(dir, 'effects.log');
    const first = await startServe(['--agent', 'echo', '--effects-log', log], dir);
    const message = setKey(userMessage('refund order 9'), mintKey());
    const original = await sendForTask(first.url, message);
    expect(original.status.state).toBe('TASK_STATE_COMPLETED');
    await first.kill9();
    expect(existsSync(join(dir, 'a2a-once.db'))).toBe(true);

    const second = await startServe(['--agent', 'echo', '--effects-log', log], dir);
    try {
      const retried = await sendForTask(second.url, message);
      expect(retried.id).toBe(original.id);
      expect(retried.artifacts).toEqual(original.artifacts);
      expect(countEffects(log)).toBe(1);
      // A different message with the same key is still refused after the restart.
      const other = { ...message, messageId: crypto.randomUUID() };
      await expect(sendForTask(second.url, other)).rejects.toThrow(/IDEMPOTENCY_KEY_REUSED/);
    } finally {
      await second.stop();
    }
  }, 30_000);
});
