/**
 * Contract: worker leases (docs/semantics.md §4 "Writers, crashes and fencing", ADR 0036). A task is created
 * holding the lease of the worker about to run it; every commit may grant a new lease or clear it; only the
 * holder renews, and only under the fence it holds. `findLapsedLeases` lists, over every scope, the SUBMITTED or
 * WORKING tasks whose lease lapsed, oldest lapse first; recovery takes each over with a plain commit expecting
 * the listed fence, so of any number of racing recoverers exactly one wins and the lost worker is refused.
 */
import { describe, expect, it } from 'vitest';
import type { TaskState } from '../../src/protocol/task-state.js';
import type { CommitResult, TaskStore } from '../../src/store/task-store.js';
import {
  ALICE,
  BOB,
  HOUR,
  OTHER_TENANT,
  claimOf,
  keyOf,
  makeTask,
  statusEvent,
  withState,
} from './fixtures/tasks.js';
import type { MakeStore, StoreHarness } from './harness.js';
import { useStore } from './harness.js';

const TTL = 30_000;
const RACERS = 64;

/** The stores to race on: the harness store, plus a peer on the same database where the backend has one. */
async function racers(h: StoreHarness): Promise<{ stores: TaskStore[]; close: () => Promise<void> }> {
  if (!h.openPeer) return { stores: [h.store], close: () => Promise.resolve() };
  const peer = await h.openPeer();
  return { stores: [h.store, peer], close: () => peer.close() };
}

/** Moves `id` (fence `fence`) to `state` without touching its lease. */
async function moveTo(store: TaskStore, id: string, state: TaskState, fence = 1): Promise<void> {
  const task = makeTask(id);
  const r = await store.commit(ALICE, id, {
    expectFence: fence,
    task: withState(task, state),
    events: [statusEvent(task, state)],
  });
  expect(r.ok).toBe(true);
}

/** Registers the lease tests. */
export function leaseContract(make: MakeStore): void {
  const h = useStore(make);

  describe('leases on create and commit', () => {
    it('createTask with a lease stores the task holding it until now + ttl; without one there is none', async () => {
      const { store, clock } = h();
      const lease = { owner: 'worker-a', expiresAt: clock.now() + TTL };
      const created = await store.createTask(ALICE, {
        task: makeTask('t1'),
        claim: claimOf(keyOf(1), 'm1', clock.now() + HOUR),
        lease: { owner: 'worker-a', ttlMs: TTL },
      });
      expect(created).toMatchObject({ outcome: 'created', record: { fence: 1, lease } });
      expect((await store.getTask(ALICE, 't1'))?.lease).toEqual(lease);
      await store.createTask(ALICE, { task: makeTask('t2') });
      expect((await store.getTask(ALICE, 't2'))?.lease).toBeUndefined();
    });

    it('a create refused for its key writes no task and no lease', async () => {
      const { store, clock } = h();
      const claim = claimOf(keyOf(1), 'm1', clock.now() + HOUR);
      await store.createTask(ALICE, { task: makeTask('t1'), claim, lease: { owner: 'a', ttlMs: TTL } });
      const again = await store.createTask(ALICE, {
        task: makeTask('t2'),
        claim,
        lease: { owner: 'b', ttlMs: TTL },
      });
      expect(again.outcome).toBe('held');
      expect(await store.getTask(ALICE, 't2')).toBeUndefined();
      expect((await store.getTask(ALICE, 't1'))?.lease?.owner).toBe('a');
    });

    it('commit grants a lease, keeps it when the write leaves it out, and clears it with null', async () => {
      const { store, clock } = h();
      const task = makeTask('t1');
      await store.createTask(ALICE, { task });
      clock.advance(1000);
      const granted = await store.commit(ALICE, 't1', {
        expectFence: 1,
        task: withState(task, 'TASK_STATE_WORKING'),
        events: [statusEvent(task, 'TASK_STATE_WORKING')],
        lease: { owner: 'worker-a', ttlMs: TTL },
      });
      const lease = { owner: 'worker-a', expiresAt: clock.now() + TTL };
      expect(granted).toMatchObject({ ok: true, record: { lease } });
      clock.advance(1000);
      const kept = await store.commit(ALICE, 't1', { expectFence: 1, task, events: [] });
      expect(kept).toMatchObject({ ok: true, record: { lease } });
      expect((await store.getTask(ALICE, 't1'))?.lease).toEqual(lease);
      const done = withState(task, 'TASK_STATE_COMPLETED');
      const cleared = await store.commit(ALICE, 't1', {
        expectFence: 1,
        task: done,
        events: [statusEvent(task, 'TASK_STATE_COMPLETED')],
        lease: null,
      });
      expect(cleared.ok && cleared.record.lease).toBeUndefined();
      expect((await store.getTask(ALICE, 't1'))?.lease).toBeUndefined();
    });

    it('a refused commit changes no lease', async () => {
      const { store } = h();
      const task = makeTask('t1');
      await store.createTask(ALICE, { task, lease: { owner: 'a', ttlMs: TTL } });
      const stale = await store.commit(ALICE, 't1', { expectFence: 2, task, events: [], lease: null });
      expect(stale.ok).toBe(false);
      expect((await store.getTask(ALICE, 't1'))?.lease?.owner).toBe('a');
    });
  });

  describe('renewLease', () => {
    it('extends the lease to now + ttl for its owner under the fence it holds', async () => {
      const { store, clock } = h();
      await store.createTask(ALICE, { task: makeTask('t1'), lease: { owner: 'a', ttlMs: TTL } });
      clock.advance(TTL - 1);
      expect(await store.renewLease(ALICE, 't1', 1, 'a', 2 * TTL)).toBe(true);
      expect((await store.getTask(ALICE, 't1'))?.lease).toEqual({
        owner: 'a',
        expiresAt: clock.now() + 2 * TTL,
      });
      clock.advance(TTL);
      expect(await store.findLapsedLeases(10)).toEqual([]);
    });

    it('is refused for another owner, a stale fence, another scope, a missing task and a cleared lease', async () => {
      const { store, clock } = h();
      const task = makeTask('t1');
      await store.createTask(ALICE, { task, lease: { owner: 'a', ttlMs: TTL } });
      const before = await store.getTask(ALICE, 't1');
      clock.advance(1000);
      expect(await store.renewLease(ALICE, 't1', 1, 'b', TTL)).toBe(false);
      expect(await store.renewLease(ALICE, 't1', 2, 'a', TTL)).toBe(false);
      expect(await store.renewLease(BOB, 't1', 1, 'a', TTL)).toBe(false);
      expect(await store.renewLease(ALICE, 'missing', 1, 'a', TTL)).toBe(false);
      expect((await store.getTask(ALICE, 't1'))?.lease).toEqual(before?.lease);
      await store.commit(ALICE, 't1', { expectFence: 1, task, events: [], lease: null });
      expect(await store.renewLease(ALICE, 't1', 1, 'a', TTL)).toBe(false);
      expect((await store.getTask(ALICE, 't1'))?.lease).toBeUndefined();
    });

    it('refuses arguments it cannot honour, with a structured error, and changes nothing', async () => {
      const { store } = h();
      await store.createTask(ALICE, { task: makeTask('t1'), lease: { owner: 'a', ttlMs: TTL } });
      const before = await store.getTask(ALICE, 't1');
      for (const [owner, ttl] of [
        ['a', 0],
        ['a', -1],
        ['a', 1.5],
        ['a', Number.NaN],
        ['', TTL],
        ['nul\u0000', TTL],
        ['lone \udc00', TTL],
        ['w'.repeat(513), TTL],
      ] as const) {
        await expect(store.renewLease(ALICE, 't1', 1, owner, ttl)).rejects.toMatchObject({
          code: 'BAD_ARGUMENT',
        });
      }
      expect((await store.getTask(ALICE, 't1'))?.lease).toEqual(before?.lease);
    });

    it('refuses a lease grant it cannot honour on create and commit, writing nothing', async () => {
      const { store, clock } = h();
      const claim = claimOf(keyOf(1), 'm1', clock.now() + HOUR);
      await expect(
        store.createTask(ALICE, { task: makeTask('t1'), claim, lease: { owner: 'a', ttlMs: 0 } }),
      ).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
      expect(await store.getTask(ALICE, 't1')).toBeUndefined();
      expect(await store.getKey(ALICE, keyOf(1))).toBeUndefined();
      const task = makeTask('t2');
      await store.createTask(ALICE, { task });
      await expect(
        store.commit(ALICE, 't2', { expectFence: 1, task, events: [], lease: { owner: '', ttlMs: TTL } }),
      ).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
      const unchanged = await store.getTask(ALICE, 't2');
      expect(unchanged?.seq).toBe(0);
      expect(unchanged?.lease).toBeUndefined();
    });
  });

  describe('leaseCensus', () => {
    it('counts the running tasks of every scope whose lease still holds, and names the first to lapse', async () => {
      const { store, clock } = h();
      if (!store.leaseCensus) throw new Error('every bundled store takes a lease census');
      expect(await store.leaseCensus()).toEqual({ held: 0 });
      const start = clock.now();
      await store.createTask(BOB, { task: makeTask('b1'), lease: { owner: 'w-b1', ttlMs: 3000 } });
      await store.createTask(ALICE, { task: makeTask('a1'), lease: { owner: 'w-a1', ttlMs: 1000 } });
      await store.createTask(OTHER_TENANT, { task: makeTask('o1'), lease: { owner: 'w-o1', ttlMs: 2000 } });
      await store.createTask(ALICE, { task: makeTask('leaseless') });
      await store.createTask(ALICE, { task: makeTask('done'), lease: { owner: 'w', ttlMs: 9000 } });
      await store.createTask(ALICE, { task: makeTask('input'), lease: { owner: 'w', ttlMs: 9000 } });
      await moveTo(store, 'done', 'TASK_STATE_COMPLETED');
      await moveTo(store, 'input', 'TASK_STATE_INPUT_REQUIRED');
      expect(await store.leaseCensus()).toEqual({ held: 3, firstExpiresAt: start + 1000 });
      // A lease that reached its expiry instant has lapsed: recovery's to take, no longer held.
      clock.set(start + 1000);
      expect(await store.leaseCensus()).toEqual({ held: 2, firstExpiresAt: start + 2000 });
      clock.set(start + 3000);
      expect(await store.leaseCensus()).toEqual({ held: 0 });
    });
  });

  describe('findLapsedLeases', () => {
    it('lists running tasks of every scope whose lease lapsed at or before now, oldest lapse first', async () => {
      const { store, clock } = h();
      const start = clock.now();
      const lease = (owner: string, ttlMs: number) => ({ owner, ttlMs });
      await store.createTask(BOB, { task: makeTask('b1'), lease: lease('w-b1', 3000) });
      await store.createTask(ALICE, { task: makeTask('a1'), lease: lease('w-a1', 1000) });
      await store.createTask(OTHER_TENANT, { task: makeTask('o1'), lease: lease('w-o1', 2000) });
      await store.createTask(ALICE, { task: makeTask('a2'), lease: lease('w-a2', 5000) });
      clock.set(start + 2999);
      expect(await store.findLapsedLeases(10)).toEqual([
        {
          ...ALICE,
          taskId: 'a1',
          fence: 1,
          lease: { owner: 'w-a1', expiresAt: start + 1000 },
          record: await store.getTask(ALICE, 'a1'),
        },
        {
          ...OTHER_TENANT,
          taskId: 'o1',
          fence: 1,
          lease: { owner: 'w-o1', expiresAt: start + 2000 },
          record: await store.getTask(OTHER_TENANT, 'o1'),
        },
      ]);
      // A lease lapses at its expiry instant.
      clock.set(start + 3000);
      const lapsed = await store.findLapsedLeases(10);
      expect(lapsed.map((t) => t.taskId)).toEqual(['a1', 'o1', 'b1']);
      expect(lapsed[2]).toEqual({
        ...BOB,
        taskId: 'b1',
        fence: 1,
        lease: { owner: 'w-b1', expiresAt: start + 3000 },
        record: await store.getTask(BOB, 'b1'),
      });
      expect((await store.findLapsedLeases(2)).map((t) => t.taskId)).toEqual(['a1', 'o1']);
      expect(await store.findLapsedLeases(0)).toEqual([]);
    });

    it('never lists interrupted, terminal or leaseless tasks, nor one whose lease was cleared', async () => {
      const { store, clock } = h();
      const leased = { lease: { owner: 'w', ttlMs: TTL } };
      for (const id of ['submitted', 'working', 'input', 'auth', 'done', 'failed', 'cleared']) {
        await store.createTask(ALICE, { task: makeTask(id), ...leased });
      }
      await store.createTask(ALICE, { task: makeTask('leaseless') });
      await moveTo(store, 'working', 'TASK_STATE_WORKING');
      await moveTo(store, 'input', 'TASK_STATE_INPUT_REQUIRED');
      await moveTo(store, 'auth', 'TASK_STATE_AUTH_REQUIRED');
      await moveTo(store, 'done', 'TASK_STATE_COMPLETED');
      await moveTo(store, 'failed', 'TASK_STATE_FAILED');
      const cleared = makeTask('cleared');
      await store.commit(ALICE, 'cleared', { expectFence: 1, task: cleared, events: [], lease: null });
      clock.advance(TTL);
      // The interrupted and terminal tasks kept their (lapsed) lease: the state alone keeps them out.
      expect((await store.getTask(ALICE, 'input'))?.lease?.owner).toBe('w');
      const lapsed = await store.findLapsedLeases(100);
      expect(lapsed.map((t) => t.taskId).sort()).toEqual(['submitted', 'working']);
      // A continuation back to WORKING under the old lease makes it recoverable again.
      await moveTo(store, 'input', 'TASK_STATE_WORKING');
      expect((await store.findLapsedLeases(100)).map((t) => t.taskId).sort()).toEqual([
        'input',
        'submitted',
        'working',
      ]);
    });

    it('returns each task as the listing read it: fence, seq, lease and content of one read (ADR 0131)', async () => {
      const { store, clock } = h();
      const task = makeTask('t1');
      await store.createTask(ALICE, { task, lease: { owner: 'w', ttlMs: TTL } });
      // A worker's writes before the lapse: the listed record must carry them (seq 2, the WORKING state, the text).
      await moveTo(store, 't1', 'TASK_STATE_WORKING');
      const progress = withState(task, 'TASK_STATE_WORKING');
      const wrote = await store.commit(ALICE, 't1', {
        expectFence: 1,
        task: { ...progress, artifacts: [{ artifactId: 'a1', parts: [{ text: 'half done' }] }] },
        events: [statusEvent(task, 'TASK_STATE_WORKING', 'halfway')],
      });
      expect(wrote.ok).toBe(true);
      clock.advance(TTL);
      const [listed] = await store.findLapsedLeases(10);
      const stored = await store.getTask(ALICE, 't1');
      expect(listed?.record).toEqual(stored);
      expect(listed?.record).toMatchObject({ fence: listed?.fence, seq: 2, lease: listed?.lease });
      expect(listed?.record.task.artifacts?.[0]?.parts).toEqual([{ text: 'half done' }]);
    });

    it('a takeover built from a listed record is refused once the task moved on after the listing', async () => {
      const { store, clock } = h();
      for (const id of ['wrote', 'continued', 'renewed', 'untouched']) {
        await store.createTask(ALICE, { task: makeTask(id), lease: { owner: 'w', ttlMs: TTL } });
      }
      clock.advance(TTL);
      const listed = await store.findLapsedLeases(10);
      expect(listed.map((l) => l.taskId).sort()).toEqual(['continued', 'renewed', 'untouched', 'wrote']);
      // After the listing: the lost worker writes (seq moves), another writer raises the fence, the worker
      // renews (neither fence nor seq moves: ADR 0037 lets that takeover land, the worker learns at its next write).
      await moveTo(store, 'wrote', 'TASK_STATE_WORKING');
      const raised = await store.commit(ALICE, 'continued', {
        expectFence: 1,
        nextFence: 2,
        task: makeTask('continued'),
        events: [],
      });
      expect(raised.ok).toBe(true);
      expect(await store.renewLease(ALICE, 'renewed', 1, 'w', TTL)).toBe(true);
      const outcomes: Record<string, boolean> = {};
      for (const l of listed) {
        const r = await store.commit(ALICE, l.taskId, {
          expectFence: l.record.fence,
          expectSeq: l.record.seq,
          nextFence: l.record.fence + 1,
          task: withState(l.record.task, 'TASK_STATE_FAILED'),
          events: [statusEvent(l.record.task, 'TASK_STATE_FAILED', 'lost')],
          lease: null,
        });
        outcomes[l.taskId] = r.ok;
        // A refused takeover reports the task as it now stands, so recovery sees what changed.
        if (!r.ok) expect(r.current).toEqual(await store.getTask(ALICE, l.taskId));
      }
      expect(outcomes).toEqual({ wrote: false, continued: false, renewed: true, untouched: true });
      expect((await store.getTask(ALICE, 'wrote'))?.task.status.state).toBe('TASK_STATE_WORKING');
      expect((await store.getTask(ALICE, 'continued'))?.fence).toBe(2);
    });

    it('of two recoverers listing the same lapsed tasks, exactly one takeover of each lands', async () => {
      const { stores, close } = await racers(h());
      try {
        const { store, clock } = h();
        const ids = Array.from({ length: 20 }, (_, i) => `t${i}`);
        for (const id of ids) {
          await store.createTask(ALICE, { task: makeTask(id), lease: { owner: 'lost', ttlMs: TTL } });
        }
        clock.advance(TTL);
        const recoverer = async (s: TaskStore, name: string): Promise<string[]> => {
          const won: string[] = [];
          await Promise.all(
            (await s.findLapsedLeases(100)).map(async (l) => {
              const r = await s.commit(ALICE, l.taskId, {
                expectFence: l.record.fence,
                expectSeq: l.record.seq,
                nextFence: l.record.fence + 1,
                task: withState(l.record.task, 'TASK_STATE_WORKING'),
                events: [statusEvent(l.record.task, 'TASK_STATE_WORKING', `taken by ${name}`)],
                lease: { owner: name, ttlMs: TTL },
              });
              if (r.ok) won.push(l.taskId);
            }),
          );
          return won;
        };
        const [a, b] = await Promise.all([
          recoverer(stores[0]!, 'a'),
          recoverer(stores[stores.length - 1]!, 'b'),
        ]);
        expect([...a, ...b].sort()).toEqual([...ids].sort());
        for (const id of ids) {
          const t = await store.getTask(ALICE, id);
          expect(t).toMatchObject({ fence: 2, seq: 1, lease: { owner: a.includes(id) ? 'a' : 'b' } });
        }
        expect(await store.findLapsedLeases(100)).toEqual([]);
      } finally {
        await close();
      }
    });

    it('refuses a limit that is not a whole number', async () => {
      const { store } = h();
      for (const limit of [-1, 1.5, Number.NaN]) {
        await expect(store.findLapsedLeases(limit)).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
      }
    });
  });

  describe('recovery after a lapse', () => {
    it(`of ${RACERS} racing recoverers exactly one takes the task over; the lost worker is refused`, async () => {
      const { stores, close } = await racers(h());
      try {
        const { store, clock } = h();
        const task = makeTask('t1');
        await store.createTask(ALICE, { task, lease: { owner: 'lost', ttlMs: TTL } });
        await moveTo(store, 't1', 'TASK_STATE_WORKING');
        clock.advance(TTL);
        const [lapsed] = await store.findLapsedLeases(10);
        expect(lapsed).toMatchObject({ ...ALICE, taskId: 't1', fence: 1, lease: { owner: 'lost' } });
        const fence = lapsed!.fence;
        const working = withState(task, 'TASK_STATE_WORKING');
        const results: CommitResult[] = await Promise.all(
          Array.from({ length: RACERS }, (_, i) =>
            stores[i % stores.length]!.commit(ALICE, 't1', {
              expectFence: fence,
              nextFence: fence + 1,
              task: working,
              events: [statusEvent(task, 'TASK_STATE_WORKING', `recovered by r${i}`)],
              lease: { owner: `r${i}`, ttlMs: TTL },
            }),
          ),
        );
        const winners = results.flatMap((r, i) => (r.ok ? [i] : []));
        expect(winners).toHaveLength(1);
        const winner = `r${winners[0]!}`;
        for (const r of results) if (!r.ok) expect(r.current?.fence).toBe(fence + 1);
        const now = clock.now();
        expect(await store.getTask(ALICE, 't1')).toMatchObject({
          fence: fence + 1,
          seq: 2,
          lease: { owner: winner, expiresAt: now + TTL },
        });
        expect(await store.readEvents(ALICE, 't1', 1)).toHaveLength(1);
        expect(await store.findLapsedLeases(10)).toEqual([]);

        // The lost worker wakes up: its renewal and its writes under the old fence are refused.
        expect(await store.renewLease(ALICE, 't1', fence, 'lost', TTL)).toBe(false);
        const late = await store.commit(ALICE, 't1', {
          expectFence: fence,
          task: withState(task, 'TASK_STATE_COMPLETED'),
          events: [statusEvent(task, 'TASK_STATE_COMPLETED')],
          lease: null,
        });
        expect(late.ok).toBe(false);
        // Losing racers hold the new fence but not the lease.
        const loser = winners[0] === 0 ? 'r1' : 'r0';
        expect(await store.renewLease(ALICE, 't1', fence + 1, loser, TTL)).toBe(false);
        expect(await store.renewLease(ALICE, 't1', fence + 1, winner, TTL)).toBe(true);
        expect((await store.getTask(ALICE, 't1'))?.task.status.state).toBe('TASK_STATE_WORKING');
      } finally {
        await close();
      }
    });

    it('renewals racing a takeover: once the takeover is in, no renewal under the old fence succeeds', async () => {
      const { stores, close } = await racers(h());
      try {
        const { store, clock } = h();
        const task = makeTask('t1');
        await store.createTask(ALICE, { task, lease: { owner: 'slow', ttlMs: TTL } });
        clock.advance(TTL);
        const takeover = stores[stores.length - 1]!.commit(ALICE, 't1', {
          expectFence: 1,
          nextFence: 2,
          task,
          events: [],
          lease: { owner: 'rescuer', ttlMs: TTL },
        });
        const renewals = Array.from({ length: RACERS }, (_, i) =>
          stores[i % stores.length]!.renewLease(ALICE, 't1', 1, 'slow', TTL),
        );
        expect((await takeover).ok).toBe(true);
        await Promise.all(renewals);
        expect(await store.getTask(ALICE, 't1')).toMatchObject({
          fence: 2,
          lease: { owner: 'rescuer', expiresAt: clock.now() + TTL },
        });
        expect(await store.renewLease(ALICE, 't1', 1, 'slow', TTL)).toBe(false);
      } finally {
        await close();
      }
    });
  });
}
