/**
 * A delivery outcome whose store write landed but whose answer was lost (a connection cut after COMMIT, as in a
 * failover), ADR 0056. The dispatcher records it again; the store recognises the repeat as landed, so delivery
 * goes straight on: no event is sent twice for it, nothing stalls for a claim's length, and the lost answer is
 * logged as a warning, not as an unexpected failure.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { A2AServer } from '../../../src/server/create-server.js';
import type { LogFields, ServerLogger } from '../../../src/server/observability/logger.js';
import type { PushOutcome } from '../../../src/store/push-delivery.js';
import { MemoryTaskStore } from '../../../src/store/memory/index.js';
import { SqliteTaskStore } from '../../../src/store/sqlite/index.js';
import type { TaskStore } from '../../../src/store/task-store.js';
import { rpcRequest } from '../../helpers/http.js';
import { startReceiver, type Receiver } from './receiver.js';
import { FAST_PUSH, pushServer } from './push-server.js';

let server: A2AServer | undefined;
let receiver: Receiver | undefined;

afterEach(async () => {
  await server?.close();
  await receiver?.close();
  server = undefined;
  receiver = undefined;
});

/**
 * `store`, except that the first `recordPushDelivery` of `kind` is applied and then answered with a connection
 * error, as a driver reports a connection lost after its COMMIT went through.
 */
function losingOneAnswer(store: TaskStore, kind: PushOutcome['kind']): TaskStore {
  let lost = false;
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'recordPushDelivery') {
        return async (...args: Parameters<TaskStore['recordPushDelivery']>) => {
          const landed = await target.recordPushDelivery(...args);
          if (!lost && args[4].kind === kind) {
            lost = true;
            throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
          }
          return landed;
        };
      }
      const v: unknown = Reflect.get(target, prop, target);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

function capture(): { logger: ServerLogger; lines: { level: string; message: string }[] } {
  const lines: { level: string; message: string }[] = [];
  const at = (level: string) => (message: string, _fields?: LogFields) => void lines.push({ level, message });
  return {
    lines,
    logger: {
      enabled: () => true,
      debug: at('debug'),
      info: at('info'),
      warn: at('warn'),
      error: at('error'),
    },
  };
}

async function sendWithHook(url: string): Promise<string> {
  const res = await server!.fetch(
    rpcRequest('SendMessage', {
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'go' }] },
      configuration: { taskPushNotificationConfig: { id: 'c1', url } },
    }),
  );
  return ((await res.json()) as { result: { task: { id: string } } }).result.task.id;
}

const stores: [string, () => Promise<TaskStore>][] = [
  ['memory', () => Promise.resolve(new MemoryTaskStore())],
  [
    'sqlite',
    async () => {
      const s = new SqliteTaskStore({ path: ':memory:' });
      await s.migrate();
      return s;
    },
  ],
];

describe.each(stores)('a lost answer to a push delivery record (%s)', (_name, open) => {
  // A claim far longer than the test waits: a dispatcher that took the lost answer for a lost claim would stall.
  const push = { ...FAST_PUSH, attemptTimeoutMs: 1_000, claimMs: 20_000 };

  it('an acknowledgement recorded again is landed: every event once, in order, without a stall', async () => {
    receiver = await startReceiver();
    const { logger, lines } = capture();
    server = pushServer(push, { store: losingOneAnswer(await open(), 'delivered'), logger });
    const taskId = await sendWithHook(`${receiver.url}/h`);
    await receiver.until((r) => r.firstAcks(taskId).length === 3, 5_000);
    expect(receiver.received.filter((r) => r.taskId === taskId).map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
    expect(lines).toContainEqual({
      level: 'warn',
      message: 'push delivery could not record an outcome; trying again',
    });
  });

  it('a failure recorded again is landed, and delivery goes on from it', async () => {
    receiver = await startReceiver(0, (_r, n) => (n === 0 ? { status: 503 } : { status: 200 }));
    const { logger, lines } = capture();
    const store = await open();
    server = pushServer(push, { store: losingOneAnswer(store, 'failed'), logger });
    const taskId = await sendWithHook(`${receiver.url}/h`);
    await receiver.until((r) => r.firstAcks(taskId).length === 3, 5_000);
    expect(receiver.received.filter((r) => r.taskId === taskId).map((r) => r.seq)).toEqual([1, 1, 2, 3]);
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
    // The cursor moves on (the receiver's last acknowledgement may be a moment ahead of its record).
    const anon = { tenant: '', owner: '' };
    let state = await store.getPushDelivery(anon, taskId, 'c1');
    for (let i = 0; i < 200 && state?.deliveredSeq !== 3; i++) {
      await new Promise((r) => setTimeout(r, 10));
      state = await store.getPushDelivery(anon, taskId, 'c1');
    }
    expect(state).toMatchObject({ deliveredSeq: 3, attempts: 0, lastError: 'HTTP 503' });
  });
});
