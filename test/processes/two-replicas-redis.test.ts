/**
 * Two `a2a-once serve` processes on one Redis behave as one server for every keyed send: one execution, one
 * task, whichever replica a retry lands on; and a streaming retry on one replica hears the other's live events
 * through the wake-up channel (ADR 0118), not one poll later. The shared Redis persists nothing, so the replicas
 * run with --redis-allow-volatile; each run keys everything under a prefix of its own, deleted after.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countEffects } from '../../src/cli/agents/index.js';
import { mintKey, setKey } from '../../src/idempotency/index.js';
import type { StreamResponse, Task } from '../../src/protocol/model.js';
import {
  REDIS_URL,
  connectRedis,
  dropPrefix,
  freshPrefix,
  redisLaneOrSkip,
} from '../store-contract/redis-backend.js';
import { cliBuilt, startServe, type ServeProcess } from './serve-process.js';
import { rpc, rpcStream, sendForTask, userMessage } from './wire.js';

const redisUp = cliBuilt ? await redisLaneOrSkip('two-replica Redis tests') : false;
if (!cliBuilt)
  console.warn('NOTICE: dist/cli/bin.js is missing (run npm run build); skipping replica tests.');

describe.skipIf(!redisUp)('two replicas on one Redis', () => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-once-redis-replicas-'));
  const prefix = freshPrefix();
  const storeUrl = `${REDIS_URL}/0?prefix=${encodeURIComponent(prefix)}`;
  const logA = join(dir, 'a.log');
  const logB = join(dir, 'b.log');
  let a: ServeProcess;
  let b: ServeProcess;
  const executions = () => countEffects(logA) + countEffects(logB);
  const serve = (log: string) =>
    startServe([
      '--agent',
      'slow',
      '--delay-ms',
      '600',
      '--store',
      storeUrl,
      '--redis-allow-volatile',
      '--effects-log',
      log,
    ]);

  beforeAll(async () => {
    [a, b] = await Promise.all([serve(logA), serve(logB)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    const client = await connectRedis();
    await dropPrefix(client, prefix);
    await client.close();
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

  it("streams replica A's live events to a streaming retry on replica B as they are committed", async () => {
    const before = executions();
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
    expect(executions() - before).toBe(1);
  }, 30_000);
});
