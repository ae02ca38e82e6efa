/**
 * Push delivery against a misbehaving receiver on loopback (docs/semantics.md §5, ADR 0045): one that fails the
 * first attempts, one that answers past the timeout, one that acknowledges an event twice because the answer to
 * its first acknowledgement was lost, one that refuses, one that never recovers. The sender retries, keeps the
 * order (event n + 1 never before n was acknowledged or given up), and the receiver sees every seq at least once,
 * in order of first delivery; what is given up is visible on the cursor and in one warn line, without secrets.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { A2AServer } from '../../../src/server/create-server.js';
import type { LogFields, ServerLogger } from '../../../src/server/observability/logger.js';
import { rpcRequest } from '../../helpers/http.js';
import { startReceiver, type Received, type Receiver } from './receiver.js';
import { FAST_PUSH, pushServer } from './push-server.js';
import { SqliteTaskStore } from '../../../src/store/sqlite/index.js';

const ANON = { tenant: '', owner: '' };
let server: A2AServer | undefined;
let receiver: Receiver | undefined;

afterEach(async () => {
  await server?.close();
  await receiver?.close();
  server = undefined;
  receiver = undefined;
});

async function sendWithHook(url: string, text = 'go'): Promise<string> {
  const res = await server!.fetch(
    rpcRequest('SendMessage', {
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
      configuration: {
        taskPushNotificationConfig: {
          id: 'c1',
          url,
          token: 'tok-secret',
          authentication: { scheme: 'Bearer', credentials: 'cred-secret' },
        },
      },
    }),
  );
  const body = (await res.json()) as { result: { task: { id: string } } };
  return body.result.task.id;
}

/** Event n + 1 first arrived only after n was first acknowledged. */
function expectOrdered(r: Receiver, taskId: string, seqs: number[]): void {
  expect(r.firstAcks(taskId)).toEqual(seqs);
  const mine = r.received.filter((x) => x.taskId === taskId);
  for (let k = 1; k < seqs.length; k++) {
    const firstOfNext = mine.findIndex((x) => x.seq === seqs[k]);
    const firstAckOfPrev = r.acknowledged.findIndex((x) => x.taskId === taskId && x.seq === seqs[k - 1]);
    const prevAck = r.acknowledged[firstAckOfPrev]!;
    expect(mine.indexOf(prevAck)).toBeLessThan(firstOfNext);
  }
}

function capture(): {
  logger: ServerLogger;
  lines: { level: string; message: string; fields?: LogFields }[];
} {
  const lines: { level: string; message: string; fields?: LogFields }[] = [];
  const at =
    (level: string) =>
    (message: string, fields?: LogFields): void => {
      lines.push({ level, message, ...(fields ? { fields } : {}) });
    };
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

describe('push delivery to a misbehaving receiver', () => {
  it('retries a receiver that fails the first attempts, and keeps the order', async () => {
    let failures = 0;
    receiver = await startReceiver(0, () => (failures++ < 5 ? { status: 503 } : { status: 200 }));
    server = pushServer();
    const taskId = await sendWithHook(`${receiver.url}/h`);
    await receiver.until((r) => r.firstAcks(taskId).length === 3);
    expectOrdered(receiver, taskId, [1, 2, 3]);
    expect(receiver.received.filter((r) => r.seq === 1).length).toBe(6); // five 503s, then the 200
    await vi.waitFor(async () =>
      expect(await server!.handler.options.store.getPushDelivery(ANON, taskId, 'c1')).toMatchObject({
        deliveredSeq: 3,
        attempts: 0,
      }),
    );
  });

  it('retries an answer that comes after the timeout; a receiver that applied it twice still sees the order', async () => {
    // The first attempt of every event is answered 2xx, but too late: the sender times out and sends it again.
    const seen = new Set<number>();
    receiver = await startReceiver(0, (r: Received) => {
      if (seen.has(r.seq)) return { status: 200 };
      seen.add(r.seq);
      return { status: 200, delayMs: 800 };
    });
    server = pushServer({ ...FAST_PUSH, attemptTimeoutMs: 300, claimMs: 1000 });
    const taskId = await sendWithHook(`${receiver.url}/h`);
    await receiver.until((r) => r.firstAcks(taskId).length === 3 && r.received.length >= 6);
    const order = receiver.received.filter((r) => r.taskId === taskId).map((r) => r.seq);
    // Each event arrived twice, and the second copy came before the next event.
    expect(order).toEqual([1, 1, 2, 2, 3, 3]);
    expect(new Set(receiver.firstAcks(taskId))).toEqual(new Set([1, 2, 3]));
  });

  it('gives up an event the receiver refuses (4xx), goes on with the next, and says so once at warn', async () => {
    receiver = await startReceiver(0, (r) => (r.seq === 2 ? { status: 410 } : { status: 204 }));
    const log = capture();
    server = pushServer(FAST_PUSH, { logger: log.logger });
    const taskId = await sendWithHook(`${receiver.url}/secret-path?sig=abc`);
    await receiver.until((r) => r.firstAcks(taskId).includes(3));
    expect(receiver.received.filter((r) => r.seq === 2)).toHaveLength(1); // not retried
    expect(receiver.firstAcks(taskId)).toEqual([1, 3]);
    const store = server.handler.options.store;
    await vi.waitFor(async () =>
      expect(await store.getPushDelivery(ANON, taskId, 'c1')).toMatchObject({
        deliveredSeq: 3,
        givenUpEvents: 1,
        lastError: 'HTTP 410',
        lastGiveUp: { fromSeq: 2, throughSeq: 2, reason: 'rejected' },
      }),
    );
    const warns = log.lines.filter((l) => l.level === 'warn');
    expect(warns).toHaveLength(1);
    expect(warns[0]!.fields).toMatchObject({ taskId, webhook: receiver.url, reason: 'rejected', fromSeq: 2 });
    const all = JSON.stringify(log.lines);
    for (const secret of ['tok-secret', 'cred-secret', 'secret-path', 'sig=abc'])
      expect(all).not.toContain(secret);
  });

  it('gives up the backlog of a receiver that keeps failing past the give-up age, visibly', async () => {
    receiver = await startReceiver(0, () => ({ status: 500 }));
    const log = capture();
    server = pushServer({ ...FAST_PUSH, giveUpAfterMs: 300 }, { logger: log.logger });
    const taskId = await sendWithHook(`${receiver.url}/h`);
    const store = server.handler.options.store;
    await vi.waitFor(
      async () =>
        expect(await store.getPushDelivery(ANON, taskId, 'c1')).toMatchObject({
          deliveredSeq: 3,
          givenUpEvents: 3,
          lastGiveUp: { fromSeq: 1, throughSeq: 3, reason: 'expired' },
          lastError: 'HTTP 500',
        }),
      { timeout: 5000 },
    );
    expect(log.lines.filter((l) => l.level === 'warn').map((l) => l.fields?.reason)).toEqual(['expired']);
    // Only the head event was ever tried: order holds even while failing.
    expect(new Set(receiver.received.map((r) => r.seq))).toEqual(new Set([1]));
  });

  it('does not let one slow webhook hold up another', async () => {
    receiver = await startReceiver(0, (r) =>
      r.path === '/slow' ? { status: 200, delayMs: 400 } : { status: 200 },
    );
    server = pushServer({ ...FAST_PUSH, attemptTimeoutMs: 1000 });
    const slow = await sendWithHook(`${receiver.url}/slow`, 'slow');
    const fast = await sendWithHook(`${receiver.url}/fast`, 'fast');
    await receiver.until((r) => r.firstAcks(fast).length === 3);
    // The fast webhook got all three while the slow one was still on its first or second.
    expect(receiver.firstAcks(slow).length).toBeLessThan(3);
    await receiver.until((r) => r.firstAcks(slow).length === 3, 5000);
  });

  it('delivers from a SQLite store too', async () => {
    receiver = await startReceiver(0, (_r, n) => (n < 2 ? { status: 502 } : { status: 200 }));
    const store = new SqliteTaskStore({ path: ':memory:' });
    await store.migrate();
    server = pushServer(FAST_PUSH, { store });
    const taskId = await sendWithHook(`${receiver.url}/h`);
    await receiver.until((r) => r.firstAcks(taskId).length === 3);
    expectOrdered(receiver, taskId, [1, 2, 3]);
  });
});
