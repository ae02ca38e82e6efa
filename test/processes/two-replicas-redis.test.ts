/**
 * Two `a2a-once serve` processes on one Redis behave as one server for every keyed send: one execution, one
 * task, whichever replica a retry lands on; and a streaming retry on one replica hears the other's live events
 * through the wake-up channel (ADR 0118), not one poll later. The shared Redis persists nothing, so the replicas
 * run with --redis-allow-volatile; each run keys everything under a prefix of its own, deleted after.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintKey, setKey } from '../../src/idempotency/index.js';
import type { StreamResponse } from '../../src/protocol/model.js';
import {
  REDIS_URL,
  connectRedis,
  dropPrefix,
  freshPrefix,
  redisLaneOrSkip,
} from '../store-contract/redis-backend.js';
import {
  lostAttemptReplaysOnTheOther,
  racingKeyedSendsRunOnce,
  startRedisReplicas,
  type RedisReplicas,
} from './redis-replicas.js';
import { cliBuilt } from './serve-process.js';
import { rpcStream, userMessage } from './wire.js';

const redisUp = cliBuilt ? await redisLaneOrSkip('two-replica Redis tests') : false;
if (!cliBuilt)
  console.warn('NOTICE: dist/cli/bin.js is missing (run npm run build); skipping replica tests.');

describe.skipIf(!redisUp)('two replicas on one Redis', () => {
  const prefix = freshPrefix();
  const storeUrl = `${REDIS_URL}/0?prefix=${encodeURIComponent(prefix)}`;
  let replicas: RedisReplicas;

  beforeAll(async () => {
    replicas = await startRedisReplicas('redis-replicas', storeUrl, 600, true);
  });
  afterAll(async () => {
    await replicas?.stop();
    const client = await connectRedis();
    await dropPrefix(client, prefix);
    await client.close();
  });

  it('runs 200 concurrent identical keyed sends split across both replicas once', async () => {
    await racingKeyedSendsRunOnce(replicas);
  }, 60_000);

  it('replays on replica B the task a lost first attempt created on replica A', async () => {
    await lostAttemptReplaysOnTheOther(replicas);
  }, 30_000);

  it("streams replica A's live events to a streaming retry on replica B as they are committed", async () => {
    const { a, b } = replicas;
    const before = replicas.executions();
    const message = setKey(userMessage('render report'), mintKey());
    const first = rpcStream(a.url, 'SendStreamingMessage', { message });
    const head = await first.next();
    const taskId = !head.done && 'task' in head.value ? head.value.task.id : undefined;
    expect(taskId).toBeDefined();
    let aDone = 0;
    const drainA = (async () => {
      for await (const _ of first) void _;
      aDone = Date.now();
    })();
    const seen: StreamResponse[] = [];
    for await (const ev of rpcStream(b.url, 'SendStreamingMessage', { message })) seen.push(ev);
    const bDone = Date.now();
    await drainA;
    expect(seen[0] && 'task' in seen[0] ? seen[0].task.id : undefined).toBe(taskId);
    const last = seen[seen.length - 1];
    expect(last && 'statusUpdate' in last ? last.statusUpdate.status.state : undefined).toBe(
      'TASK_STATE_COMPLETED',
    );
    // Woken by A's commit: well inside the 2 s safety poll a missed wake-up would have waited for.
    expect(bDone - aDone).toBeLessThan(1000);
    expect(replicas.executions() - before).toBe(1);
  }, 30_000);
});
