/**
 * Contract: `nextRecord`, a blocking wait's fast path (optional: every store here has it). It resolves with the
 * task's record once its seq is past `afterSeq` and `until` holds, at once when that is already so, whoever
 * committed (this store or another process's); with undefined on abort or when the task is gone.
 */
import { describe, expect, it } from 'vitest';
import type { StoredTask } from '../../src/store/records.js';
import type { TaskStore } from '../../src/store/task-store.js';
import { ALICE, claimOf, HOUR, makeTask, statusEvent } from './fixtures/tasks.js';
import type { MakeStore } from './harness.js';
import { useStore } from './harness.js';

function waitOf(store: TaskStore) {
  if (!store.nextRecord) throw new Error('this store has no nextRecord');
  return store.nextRecord.bind(store);
}

async function setState(
  store: TaskStore,
  state: 'TASK_STATE_WORKING' | 'TASK_STATE_COMPLETED',
  text: string,
) {
  const cur = await store.getTask(ALICE, 't1');
  if (!cur) throw new Error('no task');
  const ev = statusEvent(cur.task, state, text);
  const task = { ...cur.task, status: { state } };
  const r = await store.commit(ALICE, 't1', { expectFence: cur.fence, task, events: [ev] });
  expect(r.ok).toBe(true);
}

const completed = (r: StoredTask): boolean => r.task.status.state === 'TASK_STATE_COMPLETED';

/** Registers the nextRecord tests. */
export function nextRecordContract(make: MakeStore): void {
  const h = useStore(make);

  describe('nextRecord', () => {
    it('resolves at once with the stored record when it is already past afterSeq', async () => {
      const { store } = h();
      await store.createTask(ALICE, { task: makeTask('t1') });
      await setState(store, 'TASK_STATE_WORKING', 'w');
      const got = await waitOf(store)(ALICE, 't1', 0, new AbortController().signal);
      expect(got?.seq).toBe(1);
      expect(got?.task.status.state).toBe('TASK_STATE_WORKING');
    });

    it('waits past commits that do not satisfy `until`, then resolves with the one that does', async () => {
      const { store } = h();
      await store.createTask(ALICE, { task: makeTask('t1') });
      const waiting = waitOf(store)(ALICE, 't1', 0, new AbortController().signal, completed);
      await setState(store, 'TASK_STATE_WORKING', 'w1');
      await setState(store, 'TASK_STATE_WORKING', 'w2');
      await setState(store, 'TASK_STATE_COMPLETED', 'done');
      const got = await waiting;
      expect(got?.seq).toBe(3);
      expect(got?.task.status.state).toBe('TASK_STATE_COMPLETED');
      // What it resolved with is what a read gives.
      expect(got).toEqual(await store.getTask(ALICE, 't1'));
    });

    it('sees a commit made through another connection (another process), by polling', async () => {
      const { store, openPeer } = h();
      if (!openPeer) return; // a store only one process can use has no other writer
      const peer = await openPeer();
      try {
        await store.createTask(ALICE, { task: makeTask('t1') });
        const waiting = waitOf(store)(ALICE, 't1', 0, new AbortController().signal, completed);
        await setState(peer, 'TASK_STATE_COMPLETED', 'done elsewhere');
        const got = await waiting;
        expect(got?.task.status.state).toBe('TASK_STATE_COMPLETED');
      } finally {
        await peer.close();
      }
    });

    it('told the record is fresh, still sees a commit it was not woken for (by polling), never misses it', async () => {
      const { store } = h();
      await store.createTask(ALICE, { task: makeTask('t1') });
      // Committed before the wait starts: a store that skips its first read must find it by polling.
      await setState(store, 'TASK_STATE_COMPLETED', 'done before the wait');
      const got = await waitOf(store)(ALICE, 't1', 0, new AbortController().signal, completed, true);
      expect(got?.task.status.state).toBe('TASK_STATE_COMPLETED');
    });

    it('resolves with undefined when the signal aborts', async () => {
      const { store } = h();
      await store.createTask(ALICE, { task: makeTask('t1') });
      const ac = new AbortController();
      const waiting = waitOf(store)(ALICE, 't1', 0, ac.signal);
      setTimeout(() => ac.abort(), 20);
      expect(await waiting).toBeUndefined();
    });

    it('resolves with undefined when the task is gone (a released claim)', async () => {
      const { store } = h();
      await store.createTask(ALICE, { task: makeTask('t1'), claim: claimOf('k1', 'm1', HOUR) });
      const waiting = waitOf(store)(ALICE, 't1', 0, new AbortController().signal);
      expect(await store.releaseClaim(ALICE, 't1', 'k1')).toBe(true);
      expect(await waiting).toBeUndefined();
    });

    it('resolves with undefined for a task that does not exist', async () => {
      const { store } = h();
      expect(await waitOf(store)(ALICE, 'nope', 0, new AbortController().signal)).toBeUndefined();
    });
  });
}
