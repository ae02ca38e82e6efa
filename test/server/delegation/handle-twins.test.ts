/**
 * The delegation handle (ADR 0040), shared by the client and the server from `src/delegation/`: the same
 * scenarios over a real child server, reached through both public entries.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { A2AClient, cardUrlOf, fetchAgentCard } from '../../../src/client/index.js';
import { DelegationHandle as ClientHandle } from '../../../src/client/delegation/index.js';
import type { Task } from '../../../src/protocol/model.js';
import { DelegationHandle as ServerHandle } from '../../../src/server/delegation/index.js';
import { isCall } from '../../client/harness/fault-proxy.js';
import { startChild, until, type ChildServer } from './child-server.js';

let child: ChildServer;
let client: A2AClient;

beforeAll(async () => {
  child = await startChild();
  const card = await fetchAgentCard(cardUrlOf(child.proxy.url));
  client = A2AClient.fromCard(
    {
      ...card,
      supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, url: child.proxy.via(i.url) })),
    },
    { retry: false, cardUrl: cardUrlOf(child.proxy.url) },
  );
});
afterAll(async () => {
  await child.close();
});
beforeEach(() => child.proxy.reset());

async function childTask(text: string): Promise<Task> {
  const res = await client.send(
    { messageId: randomUUID(), parts: [{ text }] },
    { configuration: { returnImmediately: true } },
  );
  if (!('task' in res)) throw new Error('expected a task');
  return res.task;
}

it('both public entries export the one shared handle', () => {
  expect(ClientHandle).toBe(ServerHandle);
});

describe.each([
  ['client', ClientHandle],
  ['server', ServerHandle],
] as const)('the %s handle', (_side, Handle) => {
  it('settles as completed with the final task', async () => {
    const h = Handle.watching(client, await childTask('quick twin'), { pollMs: 20 });
    const o = await h.outcome();
    expect(o.status).toBe('completed');
    expect(o.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(h.isSettled).toBe(true);
  });

  it('settles as input-required when the child asks back, with its question', async () => {
    const h = Handle.watching(client, await childTask('ask twin'), { pollMs: 20 });
    const o = await h.outcome();
    expect(o.status).toBe('input-required');
    expect(o.task?.status.message?.parts).toEqual([{ text: 'which region?' }]);
  });

  it('settles as auth-required when the child asks for authorization, so a parent can surface it', async () => {
    const h = Handle.watching(client, await childTask('auth twin'), { pollMs: 20 });
    const o = await h.outcome();
    expect(o.status).toBe('auth-required');
    expect(o.task?.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
    expect(o.task?.status.message?.parts).toEqual([{ text: 'sign in to the ledger first' }]);
  });

  it('watches a child from its id alone (a resumed parent), polling at once', async () => {
    const task = await childTask('quick twin by id');
    const h = Handle.watching(client, task.id, { pollMs: 20 });
    expect(h.taskId).toBe(task.id);
    expect((await h.outcome()).status).toBe('completed');
  });

  it('yields each state once, the settled one last, and cancel() ends the child', async () => {
    const h = Handle.watching(client, await childTask('hold twin'), { pollMs: 20 });
    const seen: Task[] = [];
    const reading = (async () => {
      for await (const t of h.events) seen.push(t);
    })();
    await until(() => seen.some((t) => t.status.state === 'TASK_STATE_WORKING'));
    expect((await h.cancel()).status).toBe('canceled');
    await reading;
    const states = seen.map((t) => t.status.state);
    expect(states.at(-1)).toBe('TASK_STATE_CANCELED');
    expect(new Set(states.map((s, i) => `${s}@${seen[i]!.status.timestamp}`)).size).toBe(states.length);
    expect((await client.getTask(h.taskId!)).status.state).toBe('TASK_STATE_CANCELED');
  });

  it('cancel() of a settled child sends nothing', async () => {
    const h = Handle.watching(client, await childTask('quick twin settled'), { pollMs: 20 });
    await h.outcome();
    expect((await h.cancel()).status).toBe('completed');
    expect(child.proxy.count(isCall('CancelTask'))).toBe(0);
  });

  it('detach() stops polling, ends the events and settles the outcome as detached', async () => {
    const h = Handle.watching(client, await childTask('hold twin detach'), { pollMs: 20 });
    await until(() => child.proxy.count(isCall('GetTask')) >= 2);
    const events = (async () => {
      for await (const _ of h.events) void _;
    })();
    const waiting = h.outcome();
    h.detach();
    await events;
    const polls = child.proxy.count(isCall('GetTask'));
    const settled = await Promise.race([
      waiting,
      new Promise<'hung'>((r) => setTimeout(() => r('hung'), 2_000)),
    ]);
    expect(settled).not.toBe('hung');
    expect(settled).toMatchObject({ status: 'detached', task: { id: h.taskId } });
    expect(h.isSettled).toBe(true);
    await new Promise((r) => setTimeout(r, 150));
    expect(child.proxy.count(isCall('GetTask'))).toBe(polls);
    // The child still runs: a cancel after detach still reaches it, and says what it found.
    const cancelled = await h.cancel();
    expect(cancelled.status).toBe('canceled');
    expect(child.proxy.count(isCall('CancelTask'))).toBe(1);
    expect((await h.outcome()).status).toBe('detached');
    expect((await client.getTask(h.taskId!)).status.state).toBe('TASK_STATE_CANCELED');
  });

  it('detach() after the child settled keeps its outcome', async () => {
    const h = Handle.watching(client, await childTask('quick twin after'), { pollMs: 20 });
    expect((await h.outcome()).status).toBe('completed');
    h.detach();
    expect((await h.outcome()).status).toBe('completed');
  });

  it('is lost once no poll succeeded for lostAfterMs, keeping the last state seen', async () => {
    const task = await childTask('hold twin lost');
    child.proxy.inject({ kind: 'refuse', status: 503 }, isCall('GetTask'), 1_000);
    const h = Handle.watching(client, task, { pollMs: 20, lostAfterMs: 150 });
    const o = await h.outcome();
    expect(o.status).toBe('lost');
    expect(o.reason).toMatch(/unreachable for 150 ms/);
    expect(o.task?.id).toBe(task.id);
    child.proxy.reset();
    await client.cancelTask(task.id);
  });

  it('polls a leased child at least every third of its lease, each poll carrying the renewal', async () => {
    const task = await childTask('hold twin leased');
    // The child message carried no lease, so nothing armed one: only a poll's renewal header records one.
    expect(await child.lastRenewal(task.id)).toBeUndefined();
    const h = Handle.watching(client, task, { pollMs: 10_000, leaseMs: 1_200 });
    await until(() => child.proxy.count(isCall('GetTask')) >= 2, 2_000);
    expect(await child.lastRenewal(task.id)).toBeDefined();
    await h.cancel();
  });

  it('a settled handle answers at once and yields its task', async () => {
    const h = Handle.settled('t-1', { status: 'lost', reason: 'gone' });
    expect(await h.outcome()).toEqual({ status: 'lost', reason: 'gone' });
    const all: Task[] = [];
    for await (const t of h.events) all.push(t);
    expect(all).toEqual([]);
    expect((await h.cancel()).status).toBe('lost');
  });
});
