/**
 * SIGTERM with a turn that would run far past the grace (docs/guides/production.md "Shutting down", ADR 0088):
 * two `serve` replicas on one SQLite file, a 10-minute turn running on A, A told to stop with a 1 s grace. A exits
 * within the grace and its margin, and B takes the task over long before the task's 10 s lease would have lapsed:
 * the given-up turn's lease was cut short, fenced, so recovery did not wait a whole lease.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliBuilt, startServe, type ServeProcess } from './serve-process.js';
import { getTask, recoveriesOf, startSlowTask, until } from './lost-replica.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-drain-long-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!cliBuilt)('SIGTERM during a turn longer than the grace', () => {
  it('exits within the grace, and the other replica takes the task over before its lease would lapse', async () => {
    const store = `sqlite:${join(dir, 'store.db')}`;
    const logs = [join(dir, 'a.log'), join(dir, 'b.log')];
    const args = (log: string) => [
      ...['--agent', 'slow', '--delay-ms', '600000', '--lease', '10s', '--retention-interval', 'off'],
      ...['--store', store, '--effects-log', log, '--shutdown-grace', '1s'],
    ];
    const a: ServeProcess = await startServe(args(logs[0]!));
    const b: ServeProcess = await startServe(args(logs[1]!));
    try {
      const { taskId } = await startSlowTask(a, logs[0]!, 'ten minutes of work');
      const stopping = Date.now();
      await a.stop();
      const exitedAfter = Date.now() - stopping;
      expect(exitedAfter).toBeLessThan(1000 + 2500);
      await until(() => recoveriesOf([b], taskId).length > 0, 8000);
      const recoveredAfter = Date.now() - stopping;
      expect(recoveriesOf([b], taskId)).toEqual(['resumed']);
      // Well inside the 10 s lease the turn held when A was told to stop.
      expect(recoveredAfter).toBeLessThan(8000);
      expect((await getTask(b.url, taskId)).status.state).toBe('TASK_STATE_WORKING');
    } finally {
      await Promise.all([a.kill9(), b.kill9()]);
    }
  }, 40_000);
});
