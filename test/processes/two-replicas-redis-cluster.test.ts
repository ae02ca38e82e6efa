/**
 * Two `a2a-once serve` processes on one Redis Cluster (three nodes the test starts itself,
 * test/store/redis/redis-server.ts), opened from `redis-cluster://HOST:PORT,...`: 200 racing identical keyed
 * sends split across both replicas run once, and a retry on one replica replays the task the other created. The
 * cluster persists nothing (the test's own, thrown away after), hence --redis-allow-volatile.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countEffects } from '../../src/cli/agents/index.js';
import { mintKey, setKey } from '../../src/idempotency/index.js';
import type { Task } from '../../src/protocol/model.js';
import { redisServerInstalled, startOwnCluster, type OwnCluster } from '../store/redis/redis-server.js';
import { cliBuilt, startServe, type ServeProcess } from './serve-process.js';
import { rpc, sendForTask, userMessage } from './wire.js';

describe.skipIf(!cliBuilt || !redisServerInstalled)('two replicas on one Redis Cluster', () => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-once-redis-cluster-replicas-'));
  const logA = join(dir, 'a.log');
  const logB = join(dir, 'b.log');
  let cluster: OwnCluster;
  let a: ServeProcess;
  let b: ServeProcess;
  const executions = () => countEffects(logA) + countEffects(logB);

  beforeAll(async () => {
    cluster = await startOwnCluster();
    const store = `redis-cluster://${cluster.ports.map((p) => `127.0.0.1:${p}`).join(',')}`;
    const serve = (log: string) =>
      startServe([
        '--agent',
        'slow',
        '--delay-ms',
        '300',
        '--store',
        store,
        '--redis-allow-volatile',
        '--effects-log',
        log,
      ]);
    [a, b] = await Promise.all([serve(logA), serve(logB)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await cluster?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs 200 concurrent identical keyed sends split across both replicas once', async () => {
    const before = executions();
    const message = setKey(userMessage('charge card 42'), mintKey());
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => sendForTask(i % 2 === 0 ? a.url : b.url, message)),
    );
    expect(new Set(answers.map((t) => t.id)).size).toBe(1);
    expect(answers.every((t) => t.status.state === 'TASK_STATE_COMPLETED')).toBe(true);
    expect(executions() - before).toBe(1);
  }, 60_000);

  it('replays on replica B the task a lost first attempt created on replica A', async () => {
    const before = executions();
    const message = setKey(userMessage('ship order 7'), mintKey());
    await expect(rpc(a.url, 'SendMessage', { message }, AbortSignal.timeout(100))).rejects.toThrow();
    const retried = await sendForTask(b.url, message);
    expect(retried.status.state).toBe('TASK_STATE_COMPLETED');
    const onA = (await rpc(a.url, 'GetTask', { id: retried.id })) as { result?: Task };
    expect(onA.result?.id).toBe(retried.id);
    expect(executions() - before).toBe(1);
  }, 30_000);
});
