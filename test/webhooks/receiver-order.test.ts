/**
 * Exactly once and in order, over every processed-set (docs/semantics.md §5, "Receiver"): duplicates, a sender's
 * retry after a lost 2xx, early and late events, gaps repaired from a snapshot, an apply that fails, a GetTask that
 * fails, many concurrent copies of the same and adjacent events, and two receivers on one storage.
 */
import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { StreamResponse, Task } from '../../src/protocol/model.js';
import {
  createWebhookReceiver,
  isRefusal,
  type ApplyInfo,
  type ProcessedSet,
  type WebhookReceiver,
  type WebhookReceiverOptions,
} from '../../src/webhooks/index.js';
import { delivery, labelOf, newSecret } from './sender.js';
import { SET_BACKENDS, endSetBackends, type OpenSet } from './set-backends.js';

afterAll(endSetBackends);

const secret = newSecret();

function snapshotOf(taskId: string): Task {
  return { id: taskId, contextId: 'ctx-1', status: { state: 'TASK_STATE_COMPLETED' } };
}

describe.each(SET_BACKENDS)('receiver over $name', (backend) => {
  let open: OpenSet<unknown> | undefined;
  afterEach(async () => {
    await open?.close();
    open = undefined;
  });

  /** A receiver whose apply logs `label@seq` and writes a note through tx. */
  async function setup(extra: Partial<WebhookReceiverOptions<unknown>> = {}, set?: ProcessedSet<unknown>) {
    open ??= await backend.open();
    const o = open;
    const calls: { label: string; info: ApplyInfo<unknown> }[] = [];
    const receiver = createWebhookReceiver<unknown>({
      secret,
      store: set ?? o.set,
      getTask: (id) => Promise.resolve(snapshotOf(id)),
      onError: () => undefined,
      async apply(event: StreamResponse, info) {
        calls.push({ label: labelOf(event), info });
        await o.note(info.tx, { taskId: info.taskId, seq: info.seq, label: labelOf(event) });
      },
      ...extra,
    });
    return { receiver, calls, o };
  }

  const send = (r: WebhookReceiver<unknown>, taskId: string, seq: number) =>
    r.receive(delivery(taskId, seq, { secret }));
  const outcome = async (p: ReturnType<typeof send>) => {
    const v = await p;
    return isRefusal(v) ? v.body.error.reason : v.body.outcome;
  };

  it('applies in order; a duplicate (a retry after a lost 2xx) is acknowledged 200 and not applied', async () => {
    const { receiver, calls } = await setup();
    expect(await outcome(send(receiver, 'T', 1))).toBe('applied');
    expect(await outcome(send(receiver, 'T', 2))).toBe('applied');
    const again = await send(receiver, 'T', 2);
    expect(again).toEqual({ status: 200, body: { outcome: 'duplicate', taskId: 'T', seq: 2 } });
    expect(await outcome(send(receiver, 'T', 1))).toBe('duplicate');
    expect(calls.map((c) => c.label)).toEqual(['event 1', 'event 2']);
    expect(calls[0]!.info).toMatchObject({ kind: 'event', taskId: 'T', seq: 1, webhookId: 'T:1', scope: '' });
    expect(await receiver.store.lastSeq('', 'T')).toBe(2);
  });

  it('events delivered out of order within the reorder window are applied once each, in order', async () => {
    const { receiver, calls } = await setup({ reorderWindowMs: 5000 });
    const third = outcome(send(receiver, 'T', 3));
    const second = outcome(send(receiver, 'T', 2));
    await new Promise((r) => setTimeout(r, 30));
    expect(calls).toHaveLength(0); // 3 and 2 wait for 1
    const first = outcome(send(receiver, 'T', 1));
    expect(await Promise.all([first, second, third])).toEqual(['applied', 'applied', 'applied']);
    expect(calls.map((c) => c.label)).toEqual(['event 1', 'event 2', 'event 3']);
  });

  it('a gap past the window is repaired from a snapshot, then the event; a later copy of a missed one is a duplicate', async () => {
    const { receiver, calls, o } = await setup({ reorderWindowMs: 50 });
    expect(await outcome(send(receiver, 'T', 1))).toBe('applied');
    expect(await outcome(send(receiver, 'T', 4))).toBe('repaired');
    expect(calls.map((c) => c.label)).toEqual(['event 1', 'snapshot', 'event 4']);
    expect(calls[1]!.info).toMatchObject({ kind: 'snapshot', seq: 4, missed: { from: 2, to: 3 } });
    expect(await outcome(send(receiver, 'T', 3))).toBe('duplicate');
    expect(await outcome(send(receiver, 'T', 5))).toBe('applied');
    expect(calls.map((c) => c.label)).toEqual(['event 1', 'snapshot', 'event 4', 'event 5']);
    if (o.joins) expect((await o.notes()).map((n) => n.label)).toEqual(calls.map((c) => c.label));
  });

  it('a first event that is not seq 1 (a config created mid-task) starts from a snapshot', async () => {
    const { receiver, calls } = await setup({ reorderWindowMs: 0 });
    expect(await outcome(send(receiver, 'U', 7))).toBe('repaired');
    expect(calls[0]!.info).toMatchObject({ kind: 'snapshot', missed: { from: 1, to: 6 } });
  });

  it('an apply that throws answers 500, records nothing (rolls back its tx writes), and the retry applies once', async () => {
    let fail = true;
    const { receiver, calls, o } = await setup();
    const failing = createWebhookReceiver<unknown>({
      secret,
      store: o.set,
      getTask: (id) => Promise.resolve(snapshotOf(id)),
      onError: () => undefined,
      async apply(event, info) {
        await o.note(info.tx, { taskId: info.taskId, seq: info.seq, label: labelOf(event) });
        if (fail) throw new Error('downstream down');
        calls.push({ label: labelOf(event), info });
      },
    });
    const v = await send(failing, 'T', 1);
    expect(v.status).toBe(500);
    expect(isRefusal(v) && v.body.error.reason).toBe('APPLY_FAILED');
    expect(await o.set.lastSeq('', 'T')).toBe(0);
    if (o.joins) expect(await o.notes()).toEqual([]);
    fail = false;
    expect(await outcome(send(failing, 'T', 1))).toBe('applied');
    expect(await outcome(send(receiver, 'T', 1))).toBe('duplicate');
    expect(calls.map((c) => c.label)).toEqual(['event 1']);
    if (o.joins) expect((await o.notes()).map((n) => n.label)).toEqual(['event 1']);
  });

  it('a GetTask that fails answers 502 and records nothing; the retry repairs', async () => {
    let up = false;
    const { receiver, calls } = await setup({
      reorderWindowMs: 0,
      getTask: (id) =>
        up ? Promise.resolve(snapshotOf(id)) : Promise.reject(new Error('agent unreachable')),
    });
    const v = await send(receiver, 'T', 3);
    expect(v.status).toBe(502);
    expect(isRefusal(v) && v.body.error.reason).toBe('GAP_REPAIR_FAILED');
    expect(calls).toHaveLength(0);
    up = true;
    expect(await outcome(send(receiver, 'T', 3))).toBe('repaired');
    expect(calls.map((c) => c.label)).toEqual(['snapshot', 'event 3']);
  });

  it('a snapshot of another task is refused as a failed repair', async () => {
    const { receiver, calls } = await setup({
      reorderWindowMs: 0,
      getTask: () => Promise.resolve(snapshotOf('x')),
    });
    expect(await outcome(send(receiver, 'T', 2))).toBe('GAP_REPAIR_FAILED');
    expect(calls).toHaveLength(0);
  });

  it('many concurrent copies of the same and adjacent events: each seq applied once, in order', async () => {
    const { receiver, calls, o } = await setup({ reorderWindowMs: 10_000, pollIntervalMs: 20 });
    const N = 12;
    const copies = Array.from({ length: N * 3 }, (_, i) => (i % N) + 1);
    // A fixed shuffle (fast-check's random with a seed), so a failure replays.
    const order = fc.sample(fc.shuffledSubarray(copies, { minLength: copies.length }), {
      numRuns: 1,
      seed: 42,
    })[0]!;
    const verdicts = await Promise.all(order.map((seq) => send(receiver, 'C', seq)));
    expect(verdicts.every((v) => v.status === 200)).toBe(true);
    expect(calls.map((c) => c.info.seq)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    if (o.joins)
      expect((await o.notes()).map((n) => n.seq)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
  });

  it('two receivers on one storage (two processes on one file or database): each seq applied once, in order', async () => {
    open ??= await backend.open();
    const twin = await open.twin();
    const a = await setup({ reorderWindowMs: 10_000, pollIntervalMs: 10 });
    const b = await setup({ reorderWindowMs: 10_000, pollIntervalMs: 10 }, twin);
    const N = 10;
    const tasks = ['P', 'Q'];
    const jobs: Promise<unknown>[] = [];
    for (let copy = 0; copy < 2; copy++)
      for (let seq = N; seq >= 1; seq--)
        for (const t of tasks) jobs.push(send((seq + copy) % 2 === 0 ? a.receiver : b.receiver, t, seq));
    const verdicts = (await Promise.all(jobs)) as { status: number }[];
    expect(verdicts.every((v) => v.status === 200)).toBe(true);
    const applied = [...a.calls, ...b.calls];
    for (const t of tasks) {
      const seqs = applied.filter((c) => c.info.taskId === t).map((c) => c.info.seq);
      expect(seqs.sort((x, y) => x - y)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    }
    if (open.joins) {
      const notes = await open.notes();
      for (const t of tasks)
        expect(notes.filter((n) => n.taskId === t).map((n) => n.seq)).toEqual(
          Array.from({ length: N }, (_, i) => i + 1),
        );
    } else {
      // One process: the shared array's order is the commit order.
      for (const t of tasks)
        expect(applied.filter((c) => c.info.taskId === t).map((c) => c.info.seq)).toHaveLength(N);
    }
  });

  it('scopes keep two senders apart in one table', async () => {
    const { receiver: one, calls: c1 } = await setup({ scope: 'agent-a' });
    const { receiver: two, calls: c2 } = await setup({ scope: 'agent-b' });
    expect(await outcome(send(one, 'T', 1))).toBe('applied');
    expect(await outcome(send(two, 'T', 1))).toBe('applied');
    expect([c1.length, c2.length]).toEqual([1, 1]);
    expect(c2[0]!.info.scope).toBe('agent-b');
  });

  it('retention: a dropped entry reads as never seen, so a very late duplicate is repaired and applied again', async () => {
    const { receiver, calls } = await setup({ reorderWindowMs: 0 });
    expect(await outcome(send(receiver, 'T', 1))).toBe('applied');
    expect(await outcome(send(receiver, 'T', 2))).toBe('applied');
    await new Promise((r) => setTimeout(r, 20));
    expect(await receiver.store.purge(10)).toBe(1);
    // The documented cost of a TTL shorter than the sender's give-up age (ADR 0046).
    expect(await outcome(send(receiver, 'T', 2))).toBe('repaired');
    expect(calls.map((c) => c.label)).toEqual(['event 1', 'event 2', 'snapshot', 'event 2']);
  });
});
