/**
 * The in-memory store's own machinery, beyond the shared contract: the compact event log gives back exactly what
 * was committed, `nextRecord` wakes blocking waits, finished tasks leave in finishing order at the cap (the
 * ordered queue behind it), and a deferred key digest is computed once, only when read.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StreamResponse, Task } from '../../src/protocol/model.js';
import { ManualClock } from '../../src/store/clock.js';
import { MemoryTaskStore } from '../../src/store/memory/index.js';
import { fromLogEntry, toLogEntry } from '../../src/store/memory/memory-event-log.js';
import { OrderedQueue, type Queued } from '../../src/store/memory/ordered-queue.js';
import { arbStreamResponse, arbTask } from '../protocol/arbitraries.js';
import { ALICE, makeTask, withState } from '../store-contract/fixtures/tasks.js';

const task = makeTask('t1');
const ids = { taskId: 't1', contextId: 'ctx-t1' };

/** Events of every kind the log stores differently: bare ones (compacted) and everything else (kept whole). */
const EVENTS: StreamResponse[] = [
  {
    statusUpdate: { ...ids, status: { state: 'TASK_STATE_WORKING', timestamp: '2026-01-01T00:00:01.000Z' } },
  },
  { artifactUpdate: { ...ids, artifact: { artifactId: 'a1', parts: [{ text: 'x' }], name: 'echo' } } },
  { statusUpdate: { ...ids, status: { state: 'TASK_STATE_WORKING' }, metadata: { note: 'kept whole' } } },
  { artifactUpdate: { ...ids, artifact: { artifactId: 'a1', parts: [{ text: 'y' }] }, append: true } },
  { artifactUpdate: { ...ids, artifact: { artifactId: 'a2', parts: [{ text: 'z' }] }, lastChunk: true } },
  { statusUpdate: { taskId: 't1', contextId: 'another-context', status: { state: 'TASK_STATE_WORKING' } } },
  { message: { messageId: 'r1', role: 'ROLE_AGENT', parts: [{ text: 'reply' }] } },
  {
    statusUpdate: {
      ...ids,
      status: {
        state: 'TASK_STATE_INPUT_REQUIRED',
        message: { messageId: 'q', role: 'ROLE_AGENT', parts: [{ text: '?' }] },
      },
    },
  },
];

describe('memory store: compact event log', () => {
  it('reads back exactly the events committed, through readEvents and watch', async () => {
    const store = new MemoryTaskStore();
    await store.createTask(ALICE, { task });
    for (const event of EVENTS) {
      const r = await store.commit(ALICE, 't1', { expectFence: 1, task, events: [event] });
      expect(r.ok).toBe(true);
    }
    const read = await store.readEvents(ALICE, 't1', 0);
    expect(read).toEqual(EVENTS.map((event, i) => ({ seq: i + 1, event })));
    expect(await store.readEvents(ALICE, 't1', 5)).toEqual(read.slice(5));

    const ac = new AbortController();
    const watched: unknown[] = [];
    for await (const e of store.watch(ALICE, 't1', 2, ac.signal)) {
      watched.push(e);
      if (watched.length === EVENTS.length - 2) ac.abort();
    }
    expect(watched).toEqual(read.slice(2));
  });

  it('keeps a bare update as the status or artifact object itself, anything else whole', () => {
    const [status, artifact, withMetadata] = EVENTS;
    expect(toLogEntry(status!, task)).toBe(
      (status as { statusUpdate: { status: unknown } }).statusUpdate.status,
    );
    expect(toLogEntry(artifact!, task)).toBe(
      (artifact as { artifactUpdate: { artifact: unknown } }).artifactUpdate.artifact,
    );
    expect(toLogEntry(withMetadata!, task)).toBe(withMetadata);
  });

  it('round-trips any event of any task (property)', () => {
    fc.assert(
      fc.property(arbStreamResponse, arbTask, fc.boolean(), (event, t, sameIds) => {
        // Half the time the event is re-addressed to the task, so bare updates are exercised as often as others.
        let e: StreamResponse = event;
        if (sameIds && 'statusUpdate' in e)
          e = { statusUpdate: { ...e.statusUpdate, taskId: t.id, contextId: t.contextId ?? '' } };
        if (sameIds && 'artifactUpdate' in e)
          e = { artifactUpdate: { ...e.artifactUpdate, taskId: t.id, contextId: t.contextId ?? '' } };
        expect(fromLogEntry(toLogEntry(e, t), t)).toEqual(e);
      }),
      { numRuns: 500 },
    );
  });
});

describe('memory store: nextRecord', () => {
  async function started(): Promise<MemoryTaskStore> {
    const store = new MemoryTaskStore();
    await store.createTask(ALICE, { task });
    return store;
  }
  const working: StreamResponse = EVENTS[0]!;

  it('answers at once when the record is already past afterSeq', async () => {
    const store = await started();
    await store.commit(ALICE, 't1', { expectFence: 1, task, events: [working] });
    const r = await store.nextRecord(ALICE, 't1', 0, new AbortController().signal);
    expect(r?.seq).toBe(1);
  });

  it('waits for the next commit and resolves with its record', async () => {
    const store = await started();
    let settled = false;
    const next = store.nextRecord(ALICE, 't1', 0, new AbortController().signal).then((r) => {
      settled = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 5));
    expect(settled).toBe(false);
    const done = withState(task, 'TASK_STATE_COMPLETED');
    await store.commit(ALICE, 't1', { expectFence: 1, task: done, events: [working] });
    const r = await next;
    expect(r?.seq).toBe(1);
    expect(r?.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('with `until`, stays registered across commits that do not satisfy it', async () => {
    const store = await started();
    const settled = store.nextRecord(
      ALICE,
      't1',
      0,
      new AbortController().signal,
      (r) => r.task.status.state === 'TASK_STATE_COMPLETED',
    );
    await store.commit(ALICE, 't1', {
      expectFence: 1,
      task: withState(task, 'TASK_STATE_WORKING'),
      events: [working],
    });
    await store.commit(ALICE, 't1', {
      expectFence: 1,
      task: withState(task, 'TASK_STATE_WORKING'),
      events: [working],
    });
    let done = false;
    void settled.then(() => (done = true));
    await new Promise((r) => setTimeout(r, 5));
    expect(done).toBe(false);
    await store.commit(ALICE, 't1', {
      expectFence: 1,
      task: withState(task, 'TASK_STATE_COMPLETED'),
      events: [working],
    });
    const r = await settled;
    expect(r?.seq).toBe(3);
    expect(r?.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('resolves with undefined on abort, for an unknown task, and when the task is removed', async () => {
    const store = await started();
    const ac = new AbortController();
    const aborted = store.nextRecord(ALICE, 't1', 0, ac.signal);
    ac.abort();
    expect(await aborted).toBeUndefined();
    expect(await store.nextRecord(ALICE, 'nope', 0, new AbortController().signal)).toBeUndefined();
    const removed = store.nextRecord(ALICE, 't1', 0, new AbortController().signal);
    expect(await store.releaseClaim(ALICE, 't1', undefined)).toBe(true);
    expect(await removed).toBeUndefined();
  });
});

describe('memory store: finished tasks leave in the order they finished', () => {
  it('at the cap, each new task evicts the oldest finished one, over many evictions', async () => {
    const store = new MemoryTaskStore({ maxTasks: 50 });
    const finish = async (id: string) => {
      const t = makeTask(id);
      expect((await store.createTask(ALICE, { task: t })).outcome).toBe('created');
      await store.commit(ALICE, id, {
        expectFence: 1,
        task: withState(t, 'TASK_STATE_COMPLETED'),
        events: [],
      });
    };
    for (let i = 0; i < 2000; i++) await finish(`t${i}`);
    expect(store.taskCount).toBe(50);
    expect(await store.getTask(ALICE, 't1949')).toBeUndefined();
    for (let i = 1950; i < 2000; i++) expect(await store.getTask(ALICE, `t${i}`)).toBeDefined();
  });

  it('never evicts an active task: a cap filled with active tasks refuses', async () => {
    const store = new MemoryTaskStore({ maxTasks: 3 });
    for (const id of ['a', 'b', 'c']) await store.createTask(ALICE, { task: makeTask(id) });
    expect((await store.createTask(ALICE, { task: makeTask('d') })).outcome).toBe('full');
  });

  it('drops finished tasks past the terminal TTL in finishing order, not creation order', async () => {
    const clock = new ManualClock();
    const store = new MemoryTaskStore({ clock, terminalTaskTtlMs: 1000, sweepBudget: 1000 });
    for (const id of ['first', 'second']) await store.createTask(ALICE, { task: makeTask(id) });
    await store.commit(ALICE, 'second', {
      expectFence: 1,
      task: withState(makeTask('second'), 'TASK_STATE_COMPLETED'),
      events: [],
    });
    clock.advance(600);
    await store.commit(ALICE, 'first', {
      expectFence: 1,
      task: withState(makeTask('first'), 'TASK_STATE_COMPLETED'),
      events: [],
    });
    clock.advance(600);
    // 1200 ms after "second" finished, 600 ms after "first" did.
    expect(await store.getTask(ALICE, 'second')).toBeUndefined();
    expect(await store.getTask(ALICE, 'first')).toBeDefined();
  });

  it('OrderedQueue: push in time order, remove from anywhere, re-push moves an item to its new time', () => {
    type E = Queued<E> & { id: number; at: number };
    const q = new OrderedQueue<E>((e) => e.at);
    const es: E[] = Array.from({ length: 5 }, (_, id) => ({
      id,
      at: id * 10,
      older: undefined,
      newer: undefined,
      queue: undefined,
    }));
    for (const e of es) q.push(e);
    q.remove(es[0]!);
    q.remove(es[2]!);
    q.remove(es[2]!); // twice: no effect
    es[1]!.at = 100;
    q.push(es[1]!); // moves to the end
    const order = (): number[] => {
      const ids: number[] = [];
      for (let e = q.oldest; e; e = e.newer) ids.push(e.id);
      return ids;
    };
    expect(order()).toEqual([3, 4, 1]);
    // An item older than the newest (a clock stepped back, an odd expiry) still lands in time order.
    es[0]!.at = 35;
    q.push(es[0]!);
    expect(order()).toEqual([3, 0, 4, 1]);
    expect(q.size).toBe(4);
    while (q.oldest) q.remove(q.oldest);
    expect(q.size).toBe(0);
  });
});

describe('memory store: deferred key digest', () => {
  it('is computed only when read, once; the tombstone the key becomes keeps no digest', async () => {
    const clock = new ManualClock();
    const store = new MemoryTaskStore({ clock });
    let calls = 0;
    const t: Task = makeTask('k1');
    await store.createTask(ALICE, {
      task: t,
      claim: {
        key: 'key-0000000000-a',
        messageId: 'm-k1',
        digest: () => `d${++calls}`,
        expiresAt: clock.now() + 10,
      },
    });
    expect(calls).toBe(0);
    const held = await store.getKey(ALICE, 'key-0000000000-a');
    expect(held?.digest).toBe('d1');
    expect(held?.digest).toBe('d1');
    expect(calls).toBe(1);
    // Expired and its task gone: it becomes a tombstone that still carries the digest.
    await store.releaseClaim(ALICE, 'k1', undefined);
    clock.advance(20);
    await store.purgeExpired({ terminalMaxAgeMs: 0 });
    const tomb = await store.getKey(ALICE, 'key-0000000000-a');
    expect(tomb).toMatchObject({ tombstone: true, digest: '', messageId: 'm-k1', taskId: 'k1' });
    expect(calls).toBe(1);
  });
});
