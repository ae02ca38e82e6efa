/**
 * Push order holds whatever a delivery attempt waits on (ADR 0056). The webhook's name is resolved by an
 * injected resolver that is slow once; meanwhile the dispatcher's claim lapses and the webhook is claimed again,
 * by the same server or by a second one on the same store. The receiver must never see event n after event
 * n + 1 was acknowledged: the lookup is inside the attempt's deadline, and the claim is confirmed right before the
 * POST, under a name no other claim shares.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { A2AServer } from '../../../src/server/create-server.js';
import type { PushDeliveryOptions } from '../../../src/server/push/push-options.js';
import type { ResolvedAddress, WebhookResolver } from '../../../src/server/push/webhook-url-guard.js';
import { ManualClock } from '../../../src/store/clock.js';
import { MemoryTaskStore } from '../../../src/store/memory/index.js';
import type { TaskStore } from '../../../src/store/task-store.js';
import { rpcRequest } from '../../helpers/http.js';
import { startReceiver, type Receiver } from './receiver.js';
import { pushServer } from './push-server.js';

const ANON = { tenant: '', owner: '' };
const LOOPBACK: readonly ResolvedAddress[] = [{ address: '127.0.0.1', family: 4 }];
const servers: A2AServer[] = [];
let receiver: Receiver | undefined;

afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  await receiver?.close();
  receiver = undefined;
});

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A resolver whose first lookup waits on `firstLookup` (given the moment it starts); the others answer at once. */
function slowOnce(firstLookup: () => Promise<void>): { resolve: WebhookResolver; done: Promise<void> } {
  let calls = 0;
  let finished!: () => void;
  const done = new Promise<void>((ok) => (finished = ok));
  const resolve: WebhookResolver = async () => {
    if (++calls > 1) return LOOPBACK;
    try {
      await firstLookup();
    } finally {
      finished();
    }
    return LOOPBACK;
  };
  return { resolve, done };
}

async function sendWithHook(server: A2AServer, url: string): Promise<string> {
  const res = await server.fetch(
    rpcRequest('SendMessage', {
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'go' }] },
      configuration: { taskPushNotificationConfig: { id: 'c1', url } },
    }),
  );
  const body = (await res.json()) as { result: { task: { id: string } } };
  return body.result.task.id;
}

/** Once event m was acknowledged, nothing before m arrives: what arrived is in non-decreasing seq order. */
function expectNeverBehind(r: Receiver, taskId: string): void {
  const seqs = r.received.filter((x) => x.taskId === taskId).map((x) => x.seq);
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
}

/** The receiver's URL under a name only the injected resolver knows. */
const hookUrl = (r: Receiver): string => r.url.replace('127.0.0.1', 'hooks.slow-dns.test') + '/hook';

describe('push order across a slow name lookup', () => {
  it('one server: a lookup slower than the claim never sends an event behind the cursor', async () => {
    receiver = await startReceiver();
    const slow = slowOnce(() => sleep(1_500));
    const push: PushDeliveryOptions = {
      allowPrivateTargets: true,
      pollIntervalMs: 20,
      attemptTimeoutMs: 200,
      claimMs: 400,
      backoff: { baseMs: 10, maxMs: 50 },
      resolve: slow.resolve,
    };
    const server = pushServer(push);
    servers.push(server);
    const taskId = await sendWithHook(server, hookUrl(receiver));
    await receiver.until((r) => r.firstAcks(taskId).length === 3);
    // The slow lookup comes back after everything was acknowledged; give a late POST time to arrive.
    await slow.done;
    await sleep(300);
    expectNeverBehind(receiver, taskId);
    expect(receiver.firstAcks(taskId)).toEqual([1, 2, 3]);
  });

  it('two servers on one store: a claim taken over while its lookup waited never sends', async () => {
    receiver = await startReceiver();
    const clock = new ManualClock(Date.now());
    const store: TaskStore = new MemoryTaskStore({ clock });
    let taskId = '';
    const base: PushDeliveryOptions = {
      allowPrivateTargets: true,
      pollIntervalMs: 20,
      // Long enough that the deadline is not what saves the order here: the claim check is.
      attemptTimeoutMs: 5_000,
      claimMs: 10_000,
      backoff: { baseMs: 10, maxMs: 50 },
    };
    const slow = slowOnce(async () => {
      // While A's lookup waits, its claim lapses and B, on the same store, takes the webhook and delivers it all.
      clock.advance(10_001);
      const b = pushServer({ ...base, resolve: () => Promise.resolve(LOOPBACK) }, { store, clock });
      servers.push(b);
      await receiver!.until((r) => taskId !== '' && r.firstAcks(taskId).length === 3);
    });
    const a = pushServer({ ...base, resolve: slow.resolve }, { store, clock });
    servers.unshift(a);
    taskId = await sendWithHook(a, hookUrl(receiver));
    await slow.done;
    await sleep(300);
    expectNeverBehind(receiver, taskId);
    expect(receiver.firstAcks(taskId)).toEqual([1, 2, 3]);
    expect(await store.getPushDelivery(ANON, taskId, 'c1')).toMatchObject({ deliveredSeq: 3 });
  });
});
