/**
 * Nothing acknowledged is lost to a kill -9 of `serve` under load on Redis (docs/semantics.md §2 and §4): as
 * kill-under-load.test.ts does for SQLite and PostgreSQL, a few hundred concurrent keyed sends against a real
 * `serve` process, killed with SIGKILL while they are in flight, then restarted on the same Redis. The Redis is
 * a server of the test's own with AOF (`appendfsync everysec`), so `serve` opens it without
 * `--redis-allow-volatile`. Every answered send has its task in the state it was answered with (or later), a
 * retry of its key replays that task, and the agent ran no key twice.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readEffects } from '../../src/cli/agents/index.js';
import { setKey } from '../../src/idempotency/index.js';
import type { Message, Task } from '../../src/protocol/model.js';
import { redisServerInstalled, startOwnRedis, type OwnRedis } from '../store/redis/redis-server.js';
import { scratchDir, serveOnRedis } from './redis-replicas.js';
import { cliBuilt, type ServeProcess } from './serve-process.js';
import { rpc, userMessage } from './wire.js';

const SENDS = 600;
const WINDOW = 200;
const KILL_AFTER = 200;

const RANK: Record<string, number> = {
  TASK_STATE_SUBMITTED: 0,
  TASK_STATE_WORKING: 1,
  TASK_STATE_COMPLETED: 2,
};

const dir = scratchDir('kill-load-redis');
let redis: OwnRedis | undefined;
afterAll(async () => {
  await redis?.dispose();
  dir.remove();
});

describe.skipIf(!cliBuilt || !redisServerInstalled)('kill -9 of serve under load, Redis', () => {
  it('every answered send survives, replays, and ran once', async () => {
    redis = await startOwnRedis('everysec');
    const store = `${redis.url}/0`;
    const log = dir.file('effects.log');
    let serve: ServeProcess = await serveOnRedis({ store, effectsLog: log });
    expect(serve.stderr()).toMatch(/AOF \(appendfsync everysec\)/);
    const acked: { message: Message; task: Task }[] = [];
    const messages = Array.from({ length: SENDS }, (_, i) =>
      setKey(userMessage(`load ${i}`), `kill-load-${i}-${Math.random().toString(36).slice(2, 10)}`),
    );
    let killing: Promise<void> | undefined;
    const url = serve.url;
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < messages.length && killing === undefined) {
        const message = messages[next++]!;
        try {
          const body = (await rpc(url, 'SendMessage', { message })) as { result?: { task?: Task } };
          if (!body.result?.task) continue;
          acked.push({ message, task: body.result.task });
          if (acked.length === KILL_AFTER) killing = serve.kill9();
        } catch {
          // Cut by the kill: unacknowledged, so the server owes it nothing.
        }
      }
    };
    await Promise.allSettled(Array.from({ length: WINDOW }, lane));
    await killing;
    expect(acked.length).toBeGreaterThanOrEqual(KILL_AFTER);
    expect(acked.length).toBeLessThan(SENDS);

    serve = await serveOnRedis({ store, effectsLog: log });
    try {
      const check = async ({ message, task }: { message: Message; task: Task }) => {
        const now = (await rpc(serve.url, 'GetTask', { id: task.id })) as { result?: Task };
        expect(now.result, `task ${task.id} of an answered send`).toBeDefined();
        expect(RANK[now.result!.status.state] ?? 3).toBeGreaterThanOrEqual(RANK[task.status.state] ?? 3);
        const retry = (await rpc(serve.url, 'SendMessage', { message })) as { result?: { task?: Task } };
        expect(retry.result?.task?.id).toBe(task.id);
      };
      for (let i = 0; i < acked.length; i += 50) await Promise.all(acked.slice(i, i + 50).map(check));
      const runs = new Map<string, number>();
      for (const e of readEffects(log)) runs.set(e.messageId, (runs.get(e.messageId) ?? 0) + 1);
      expect([...runs.values()].filter((n) => n > 1)).toEqual([]);
      for (const { message } of acked) expect(runs.get(message.messageId)).toBe(1);
    } finally {
      await serve.stop();
    }
  }, 60_000);
});
