/**
 * Contract: the abandoned-task phase of `purgeExpired` (`interruptedMaxAgeMs`, docs/semantics.md §6). An
 * INPUT_REQUIRED or AUTH_REQUIRED task not written for that long is ended with the shared write of
 * src/store/abandon.ts: CANCELED with a status message, fence + 1, one event appended and delivered to watchers,
 * as a compare-and-set, so a continuation racing the sweep either lands first (and the task is no longer
 * interrupted) or is refused as stale. Once ended it is an ordinary terminal task: a later purge removes it.
 */
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/protocol/model.js';
import type { TaskState } from '../../src/protocol/task-state.js';
import { isoAt } from '../../src/protocol/iso-time.js';
import { abandonedTaskWrite } from '../../src/store/abandon.js';
import type { CommitResult, TaskStore } from '../../src/store/task-store.js';
import { ALICE, DAY, claimOf, keyOf, makeTask, statusEvent, withState } from './fixtures/tasks.js';
import type { MakeStore, StoreHarness } from './harness.js';
import { useStore } from './harness.js';

const POLICY = { terminalMaxAgeMs: 7 * DAY, interruptedMaxAgeMs: 30 * DAY };

/** Creates `id` (keyed when `key` is given) and moves it to `state` with one event (fence 1, seq 1). */
async function interrupted(
  h: StoreHarness,
  id: string,
  state: TaskState = 'TASK_STATE_INPUT_REQUIRED',
  key?: string,
): Promise<Task> {
  const { store, clock } = h;
  const task = makeTask(id);
  const claim = key ? { claim: claimOf(key, `m-${id}`, clock.now() + DAY) } : {};
  expect((await store.createTask(ALICE, { task, ...claim })).outcome).toBe('created');
  const waiting = withState(task, state, isoAt(clock.now()));
  const r = await store.commit(ALICE, id, {
    expectFence: 1,
    task: waiting,
    events: [statusEvent(task, state)],
  });
  expect(r.ok).toBe(true);
  return waiting;
}

/** The text of a task's status message. */
function statusText(task: Task): string {
  return (task.status.message?.parts ?? []).map((p) => ('text' in p ? p.text : '')).join('');
}

/** The stores to race on: the harness store, plus a peer on the same database where the backend has one. */
async function racers(h: StoreHarness): Promise<{ stores: TaskStore[]; close: () => Promise<void> }> {
  if (!h.openPeer) return { stores: [h.store, h.store], close: () => Promise.resolve() };
  const peer = await h.openPeer();
  return { stores: [h.store, peer], close: () => peer.close() };
}

/** Registers the abandoned-task tests. */
export function abandonContract(make: MakeStore): void {
  const h = useStore(make);

  describe('abandoned interrupted tasks', () => {
    it('cancels a task left in INPUT_REQUIRED for 31 days: fence + 1, one event, seen by a waiting watch', async () => {
      const { store, clock } = h();
      const created = clock.now();
      const waiting = await interrupted(h(), 't1');
      clock.advance(31 * DAY);
      const ac = new AbortController();
      const events = store.watch(ALICE, 't1', 1, ac.signal)[Symbol.asyncIterator]();
      const next = events.next();
      await new Promise((resolve) => setTimeout(resolve, 20)); // the watch is now waiting for seq 2

      const report = await store.purgeExpired(POLICY);
      expect(report).toEqual({ tasks: 0, abandoned: 1, keys: 0, tombstones: 0, batches: 1, complete: true });
      const end = abandonedTaskWrite(waiting, clock.now());
      expect(end.task.status.state).toBe('TASK_STATE_CANCELED');
      expect(statusText(end.task)).toMatch(/waited for input/);
      expect(await next).toEqual({ done: false, value: { seq: 2, event: end.event } });
      ac.abort();
      expect(await store.getTask(ALICE, 't1')).toEqual({
        task: end.task,
        kind: 'task',
        fence: 2,
        seq: 2,
        createdAt: created,
        updatedAt: clock.now(),
      });
      expect(await store.readEvents(ALICE, 't1', 0)).toEqual([
        { seq: 1, event: statusEvent(makeTask('t1'), 'TASK_STATE_INPUT_REQUIRED') },
        { seq: 2, event: end.event },
      ]);
      // A second sweep finds nothing more to do.
      expect((await store.purgeExpired(POLICY)).abandoned).toBe(0);
    });

    it('ends AUTH_REQUIRED too, at or before the cutoff only, and nothing without interruptedMaxAgeMs', async () => {
      const { store, clock } = h();
      const start = clock.now();
      const auth = await interrupted(h(), 'auth', 'TASK_STATE_AUTH_REQUIRED');
      await interrupted(h(), 'working', 'TASK_STATE_WORKING');
      await store.createTask(ALICE, { task: makeTask('submitted') });
      clock.set(start + DAY);
      const boundary = await interrupted(h(), 'boundary');
      clock.set(start + DAY + 1);
      await interrupted(h(), 'recent');
      clock.set(start + 31 * DAY); // the cutoff is start + DAY: 'boundary' is exactly on it

      const untouched = await store.purgeExpired({ terminalMaxAgeMs: POLICY.terminalMaxAgeMs });
      expect(untouched).toEqual({
        tasks: 0,
        abandoned: 0,
        keys: 0,
        tombstones: 0,
        batches: 0,
        complete: true,
      });
      expect((await store.getTask(ALICE, 'auth'))?.task.status.state).toBe('TASK_STATE_AUTH_REQUIRED');

      expect(await store.purgeExpired(POLICY)).toMatchObject({ abandoned: 2, tasks: 0, complete: true });
      const now = clock.now();
      expect(await store.getTask(ALICE, 'auth')).toMatchObject({
        task: abandonedTaskWrite(auth, now).task,
        fence: 2,
        seq: 2,
      });
      expect(statusText(abandonedTaskWrite(auth, now).task)).toMatch(/waited for authorization/);
      expect(await store.getTask(ALICE, 'boundary')).toMatchObject({
        task: abandonedTaskWrite(boundary, now).task,
        fence: 2,
        seq: 2,
      });
      for (const [id, state, seq] of [
        ['recent', 'TASK_STATE_INPUT_REQUIRED', 1],
        ['working', 'TASK_STATE_WORKING', 1],
        ['submitted', 'TASK_STATE_SUBMITTED', 0],
      ] as const) {
        expect(await store.getTask(ALICE, id)).toMatchObject({ task: { status: { state } }, fence: 1, seq });
      }
    });

    it('once ended, a late continuation is stale, and a later purge removes the task and tombstones its key', async () => {
      const { store, clock } = h();
      const waiting = await interrupted(h(), 't1', 'TASK_STATE_INPUT_REQUIRED', keyOf(1));
      clock.advance(31 * DAY);
      // The key expired long ago, but a key never expires before its task: it stays live.
      expect(await store.purgeExpired(POLICY)).toMatchObject({ abandoned: 1, tasks: 0, keys: 0 });
      const retry = await store.createTask(ALICE, {
        task: makeTask('t2'),
        claim: claimOf(keyOf(1), 'm-t1', 0),
      });
      expect(retry).toMatchObject({ outcome: 'held', key: { taskId: 't1', tombstone: false } });
      const late = await store.commit(ALICE, 't1', {
        expectFence: 1,
        nextFence: 2,
        task: withState(waiting, 'TASK_STATE_WORKING'),
        events: [statusEvent(waiting, 'TASK_STATE_WORKING')],
      });
      expect(late).toMatchObject({
        ok: false,
        current: { fence: 2, task: { status: { state: 'TASK_STATE_CANCELED' } } },
      });

      clock.advance(7 * DAY);
      expect(await store.purgeExpired(POLICY)).toMatchObject({
        tasks: 1,
        abandoned: 0,
        keys: 1,
        tombstones: 0,
      });
      expect(await store.getTask(ALICE, 't1')).toBeUndefined();
      expect(await store.getKey(ALICE, keyOf(1))).toMatchObject({
        tombstone: true,
        tombstonedAt: clock.now(),
      });
      const expired = await store.createTask(ALICE, {
        task: makeTask('t3'),
        claim: claimOf(keyOf(1), 'm-t1', 0),
      });
      expect(expired.outcome).toBe('expired');
    });

    it('works in batches, stops at maxBatches with complete false, and resumes', async () => {
      const { store, clock } = h();
      for (let i = 0; i < 5; i++) await interrupted(h(), `t${i}`);
      clock.advance(31 * DAY);
      const partial = await store.purgeExpired({ ...POLICY, batchSize: 2, maxBatches: 2 });
      expect(partial).toEqual({
        tasks: 0,
        abandoned: 4,
        keys: 0,
        tombstones: 0,
        batches: 2,
        complete: false,
      });
      const rest = await store.purgeExpired({ ...POLICY, batchSize: 2 });
      expect(rest).toEqual({ tasks: 0, abandoned: 1, keys: 0, tombstones: 0, batches: 1, complete: true });
      for (let i = 0; i < 5; i++) {
        expect(await store.getTask(ALICE, `t${i}`)).toMatchObject({
          task: { status: { state: 'TASK_STATE_CANCELED' } },
          fence: 2,
          seq: 2,
        });
      }
    });

    it('races continuations cleanly: each task is either continued or cancelled, never both', async () => {
      const { stores, close } = await racers(h());
      try {
        const { store, clock } = h();
        const N = 16;
        const tasks: Task[] = [];
        for (let i = 0; i < N; i++) tasks.push(await interrupted(h(), `t${i}`));
        clock.advance(31 * DAY);
        const continueTask = (t: Task) =>
          stores[1]!.commit(ALICE, t.id, {
            expectFence: 1,
            nextFence: 2,
            task: withState(t, 'TASK_STATE_WORKING'),
            events: [statusEvent(t, 'TASK_STATE_WORKING')],
          });
        // Half the continuations start before the sweep, half while it runs, one per turn of the event loop, so
        // they land between its batches (small batches) on every backend, even where each call is synchronous.
        const evens = tasks.filter((_, i) => i % 2 === 0);
        const odds = tasks.filter((_, i) => i % 2 === 1);
        const results = new Map(evens.map((t) => [t.id, continueTask(t)]));
        const sweep = stores[0]!.purgeExpired({ ...POLICY, batchSize: 3 });
        sweep.catch(() => undefined); // awaited below; this only keeps a failure from being reported unhandled
        for (const t of odds) {
          await new Promise((resolve) => setImmediate(resolve));
          results.set(t.id, continueTask(t));
        }
        const report = await sweep;
        const byId = new Map<string, CommitResult>();
        for (const [id, p] of results) byId.set(id, await p);
        let cancelled = 0;
        for (const t of tasks) {
          const rec = await store.getTask(ALICE, t.id);
          const events = await store.readEvents(ALICE, t.id, 1);
          expect(rec).toMatchObject({ fence: 2, seq: 2 });
          expect(events).toHaveLength(1);
          if (byId.get(t.id)!.ok) {
            expect(rec?.task.status.state).toBe('TASK_STATE_WORKING');
            expect(events[0]!.event).toEqual(statusEvent(t, 'TASK_STATE_WORKING'));
          } else {
            cancelled++;
            expect(rec?.task.status.state).toBe('TASK_STATE_CANCELED');
            expect(events[0]!.event).toEqual(abandonedTaskWrite(t, clock.now()).event);
            expect(byId.get(t.id)).toMatchObject({ ok: false, current: { fence: 2 } });
          }
        }
        expect(report.abandoned).toBe(cancelled);
      } finally {
        await close();
      }
    });
  });
}
