/**
 * `Delegation.start` / `startLeased` / `startBudgeted` (ADR 0040) over a real a2a-once child listening on
 * 127.0.0.1 behind a fault proxy: one child however the link fails, the handle's events and outcomes, cancel and
 * detach, and the lease and budget the child enforces (ADR 0039).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { A2AClient, cardUrlOf, fetchAgentCard, type A2AClientOptions } from '../../../src/client/index.js';
import { Delegation, DELEGATION_METADATA_KEY } from '../../../src/client/delegation/index.js';
import { IDEMPOTENCY_METADATA_KEY, keyOf } from '../../../src/idempotency/index.js';
import type { Message } from '../../../src/protocol/model.js';
import { startChild, until, type ChildServer } from '../../server/delegation/child-server.js';
import { isCall, type SeenRequest } from '../harness/fault-proxy.js';

let child: ChildServer;
const fast: A2AClientOptions = {
  retry: { maxAttempts: 5, backoff: { initialMs: 20, maxMs: 100 } },
  attemptTimeoutMs: 5_000,
};

beforeAll(async () => {
  child = await startChild();
});
afterAll(async () => {
  await child.close();
});
beforeEach(() => child.proxy.reset());

function msg(text: string): Message {
  return { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] };
}

function sendsOf(messageId: string): (r: SeenRequest) => boolean {
  const call = isCall('SendMessage');
  return (r) => call(r) && r.body.includes(messageId);
}

/** A client of the child through the proxy (its card names the child's own URL: rewritten to the proxy's). */
async function honouring(extra: A2AClientOptions = {}): Promise<A2AClient> {
  const card = await fetchAgentCard(cardUrlOf(child.proxy.url));
  const proxied = {
    ...card,
    supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, url: child.proxy.via(i.url) })),
  };
  return A2AClient.fromCard(proxied, { ...fast, cardUrl: cardUrlOf(child.proxy.url), ...extra });
}

describe('Delegation.start', () => {
  it('keys the child message once and reports the completed child', async () => {
    const client = await honouring();
    const m = msg('quick sum');
    const handle = await Delegation.start(client, m, { pollMs: 20 });
    const outcome = await handle.outcome();
    expect(outcome.status).toBe('completed');
    expect(outcome.task?.id).toBe(handle.taskId);
    const seen = child.turns.find((t) => t.message.messageId === m.messageId)!;
    expect(keyOf(seen.message)).toMatch(/^ik1\./);
  });

  it('keeps a key the caller set on the message', async () => {
    const client = await honouring();
    const m = { ...msg('quick keyed'), metadata: { [IDEMPOTENCY_METADATA_KEY]: 'caller-chosen-key-0001' } };
    const handle = await Delegation.start(client, m, { pollMs: 20 });
    await handle.outcome();
    expect(keyOf(child.turns.find((t) => t.message.messageId === m.messageId)!.message)).toBe(
      'caller-chosen-key-0001',
    );
  });

  it('racing starts of one keyed message (a parent retrying in parallel) all reach one child', async () => {
    const client = await honouring();
    const m = { ...msg('quick race'), metadata: { [IDEMPOTENCY_METADATA_KEY]: 'caller-chosen-race-key-01' } };
    const handles = await Promise.all(
      Array.from({ length: 12 }, () => Delegation.start(client, m, { pollMs: 20 })),
    );
    const outcomes = await Promise.all(handles.map((h) => h.outcome()));
    expect(new Set(handles.map((h) => h.taskId)).size).toBe(1);
    expect(outcomes.every((o) => o.status === 'completed')).toBe(true);
    expect(child.executionsOf(m.messageId)).toBe(1);
  });

  it('reaches one child when the link drops the first answer (the client resends with the key)', async () => {
    const client = await honouring();
    const m = msg('quick flaky');
    child.proxy.inject({ kind: 'drop-response' }, sendsOf(m.messageId));
    const handle = await Delegation.start(client, m, { pollMs: 20 });
    expect((await handle.outcome()).status).toBe('completed');
    expect(child.proxy.count(sendsOf(m.messageId))).toBeGreaterThanOrEqual(2);
    expect(child.executionsOf(m.messageId)).toBe(1);
  });

  it('sends unkeyed to a peer that does not honour keys, and reports a lost answer as lost, not resent', async () => {
    const client = A2AClient.fromEndpoint(`${child.proxy.url}/`, { ...fast, peerHonoursKeys: false });
    const m = msg('quick unkeyed');
    child.proxy.inject({ kind: 'drop-response' }, sendsOf(m.messageId));
    const handle = await Delegation.start(client, m, { pollMs: 20 });
    const outcome = await handle.outcome();
    expect(outcome.status).toBe('lost');
    expect(outcome.reason).toMatch(/cannot be resent safely/);
    expect(child.proxy.count(sendsOf(m.messageId))).toBe(1);
    const seen = child.turns.find((t) => t.message.messageId === m.messageId)!;
    expect(keyOf(seen.message)).toBeUndefined();
  });

  it("streams the child's states as events, ending with the settled one", async () => {
    const client = await honouring();
    const handle = await Delegation.start(client, msg('hold events'), { pollMs: 20 });
    const states: string[] = [];
    const reading = (async () => {
      for await (const t of handle.events) states.push(t.status.state);
    })();
    await until(() => states.includes('TASK_STATE_WORKING'));
    await handle.cancel();
    await reading;
    expect(states.at(-1)).toBe('TASK_STATE_CANCELED');
    expect((await handle.outcome()).status).toBe('canceled');
  });

  it('cancel() cancels the child task', async () => {
    const client = await honouring();
    const handle = await Delegation.start(client, msg('hold cancel'), { pollMs: 20 });
    const outcome = await handle.cancel();
    expect(outcome.status).toBe('canceled');
    const task = await client.getTask(handle.taskId!);
    expect(task.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('reports a child unreachable past lostAfterMs as lost', async () => {
    const client = await honouring({ retry: false });
    const handle = await Delegation.start(client, msg('hold unreachable'), { pollMs: 20, lostAfterMs: 200 });
    child.proxy.inject({ kind: 'refuse', status: 503 }, isCall('GetTask'), 1000);
    const outcome = await handle.outcome();
    expect(outcome.status).toBe('lost');
    expect(outcome.reason).toMatch(/unreachable for 200 ms/);
    child.proxy.reset();
    await client.cancelTask(handle.taskId!);
  });
});

describe('Delegation.startLeased', () => {
  it('renews the lease with every GetTask poll while the parent watches', async () => {
    const client = await honouring();
    const handle = await Delegation.startLeased(client, msg('hold leased'), { leaseMs: 1_000, pollMs: 50 });
    await until(async () => (await child.lastRenewal(handle.taskId!)) !== undefined);
    const first = (await child.lastRenewal(handle.taskId!))!;
    await until(async () => ((await child.lastRenewal(handle.taskId!)) ?? 0) > first);
    await new Promise((r) => setTimeout(r, 1_300));
    expect((await client.getTask(handle.taskId!)).status.state).toBe('TASK_STATE_WORKING');
    await handle.cancel();
  });

  it('a child whose parent stops renewing (detached) cancels itself when the lease lapses', async () => {
    const client = await honouring();
    const m = msg('hold lapse');
    const handle = await Delegation.startLeased(client, m, { leaseMs: 1_000, pollMs: 50 });
    const seen = child.turns.find((t) => t.message.messageId === m.messageId)!;
    expect(seen.message.metadata?.[DELEGATION_METADATA_KEY]).toEqual({ leaseMs: 1_000 });
    handle.detach();
    await until(
      async () => (await client.getTask(handle.taskId!)).status.state === 'TASK_STATE_CANCELED',
      4_000,
    );
  });

  it('refuses a lease shorter than a second before sending anything', async () => {
    const client = await honouring();
    const m = msg('quick short lease');
    await expect(Delegation.startLeased(client, m, { leaseMs: 10 })).rejects.toThrow(/at least 1000/);
    expect(child.executionsOf(m.messageId)).toBe(0);
  });
});

describe('Delegation.startBudgeted', () => {
  it('fails the child with a status message once its deadline passes', async () => {
    const client = await honouring();
    const deadline = Date.now() + 300;
    const handle = await Delegation.startBudgeted(client, msg('hold budget'), { deadline, pollMs: 20 });
    const outcome = await handle.outcome();
    expect(outcome.status).toBe('failed');
    const text = outcome.task?.status.message?.parts.map((p) => ('text' in p ? p.text : '')).join('');
    expect(text).toBe(
      `The delegation budget ran out: its deadline ${new Date(deadline).toISOString()} passed before the task finished`,
    );
  });
});
