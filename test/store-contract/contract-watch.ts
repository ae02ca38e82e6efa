/** Contract: watch yields events in order without gaps or duplicates, wakes on commit, ends on abort or removal. */
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/store/records.js';
import type { TaskStore } from '../../src/store/task-store.js';
import { ALICE, makeTask, statusEvent } from './fixtures/tasks.js';
import type { MakeStore } from './harness.js';
import { useStore } from './harness.js';

/** Collects events until `count` arrived (then aborts) or the iterator ends. */
async function collect(
  iter: AsyncIterable<StoredEvent>,
  count: number,
  ac: AbortController,
): Promise<number[]> {
  const seqs: number[] = [];
  for await (const e of iter) {
    seqs.push(e.seq);
    if (seqs.length >= count) ac.abort();
  }
  return seqs;
}

async function appendEvents(store: TaskStore, commits: number, perCommit: number): Promise<void> {
  const task = makeTask('t1');
  for (let i = 0; i < commits; i++) {
    const events = Array.from({ length: perCommit }, (_, j) =>
      statusEvent(task, 'TASK_STATE_WORKING', `${i}.${j}`),
    );
    const r = await store.commit(ALICE, 't1', { expectFence: 1, task, events });
    expect(r.ok).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** Registers the watch tests. */
export function watchContract(make: MakeStore): void {
  const h = useStore(make);

  describe('watch', () => {
    it('yields stored events after afterSeq, then live ones, in order, each once', async () => {
      const { store } = h();
      await store.createTask(ALICE, { task: makeTask('t1') });
      await appendEvents(store, 2, 2);
      const ac = new AbortController();
      const seen = collect(store.watch(ALICE, 't1', 1, ac.signal), 3 + 30, ac);
      await appendEvents(store, 10, 3);
      expect(await seen).toEqual(Array.from({ length: 33 }, (_, i) => i + 2));
    });

    it('delivers the event payloads as committed', async () => {
      const { store } = h();
      const task = makeTask('t1');
      await store.createTask(ALICE, { task });
      const ac = new AbortController();
      const it = store.watch(ALICE, 't1', 0, ac.signal)[Symbol.asyncIterator]();
      const next = it.next();
      const ev = statusEvent(task, 'TASK_STATE_COMPLETED', 'done');
      await store.commit(ALICE, 't1', { expectFence: 1, task, events: [ev] });
      expect(await next).toEqual({ done: false, value: { seq: 1, event: ev } });
      ac.abort();
      expect((await it.next()).done).toBe(true);
    });

    it('ends when the signal aborts while waiting', async () => {
      const { store } = h();
      await store.createTask(ALICE, { task: makeTask('t1') });
      const ac = new AbortController();
      const seen = collect(store.watch(ALICE, 't1', 0, ac.signal), 100, ac);
      setTimeout(() => ac.abort(), 30);
      expect(await seen).toEqual([]);
    });

    it('ends when the task is removed, and at once for a missing task', async () => {
      const { store } = h();
      await store.createTask(ALICE, { task: makeTask('t1') });
      const ac = new AbortController();
      const seen = collect(store.watch(ALICE, 't1', 0, ac.signal), 100, ac);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await store.releaseClaim(ALICE, 't1', undefined)).toBe(true);
      expect(await seen).toEqual([]);
      expect(await collect(store.watch(ALICE, 'missing', 0, ac.signal), 1, new AbortController())).toEqual(
        [],
      );
    });

    it('sees commits made through another connection to the same database', async () => {
      const { store, openPeer } = h();
      if (!openPeer) return;
      const peer = await openPeer();
      try {
        await store.createTask(ALICE, { task: makeTask('t1') });
        const ac = new AbortController();
        const seen = collect(store.watch(ALICE, 't1', 0, ac.signal), 12, ac);
        await appendEvents(peer, 4, 3);
        expect(await seen).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      } finally {
        await peer.close();
      }
    });
  });
}
