/**
 * Contract: a write whose answer is lost is applied once (docs/semantics.md §4 "Lost answers", ADR 0052). For
 * every write kind, the backend's driver (`fixtures/driver-faults.ts`) either runs the write and then throws (a
 * connection cut after COMMIT) or throws before it runs; the caller then retries the same write, as the
 * server's callers do, and the stored state must equal that of exactly one application, with the retry answered
 * as landed rather than turned into an error. A finished task takes no second terminal write.
 */
import { describe, expect, it } from 'vitest';
import type { TaskStore, TaskWrite } from '../../src/store/task-store.js';
import type { DriverFault } from './fixtures/driver-faults.js';
import { ALICE, DAY, HOUR, claimOf, keyOf, makeTask, statusEvent, withState } from './fixtures/tasks.js';
import type { MakeStore, StoreHarness } from './harness.js';
import { useStore } from './harness.js';

const FAULTS: readonly DriverFault[] = ['lose-answer', 'fail-before'];

/** Runs `write` once with `fault` armed (it must reject), then again; returns the retry's result. */
async function faultThenRetry<T>(h: StoreHarness, fault: DriverFault, write: () => Promise<T>): Promise<T> {
  const faults = h.faults!;
  faults.arm(fault);
  await expect(write()).rejects.toThrow(/Connection terminated/);
  expect(faults.pending).toBe(0);
  return write();
}

/** A task t1 (keyed `k` when asked) with a lease, created without faults. */
async function created(store: TaskStore, id = 't1', lease = true) {
  const r = await store.createTask(ALICE, {
    task: makeTask(id),
    ...(lease ? { lease: { owner: 'w#1', ttlMs: 30_000 } } : {}),
  });
  if (r.outcome !== 'created') throw new Error(r.outcome);
  return r.record;
}

/** A write of t1 to WORKING with one event. */
function working(id: string, writeId: string): TaskWrite {
  const task = withState(makeTask(id), 'TASK_STATE_WORKING');
  return { expectFence: 1, task, events: [statusEvent(task, 'TASK_STATE_WORKING')], writeId };
}

/** Registers the lost-answer tests; a backend without driver faults registers none. */
export function lostAnswerContract(make: MakeStore): void {
  const h = useStore(make);

  for (const fault of FAULTS) {
    describe(fault, () => {
      it('commit: the retry of a write is answered as landed and its events are stored once', async () => {
        const { store } = h();
        await created(store);
        const write = working('t1', 'w-1');
        const r = await faultThenRetry(h(), fault, () => store.commit(ALICE, 't1', write));
        expect(r.ok).toBe(true);
        if (r.ok) expect(r.landedEarlier === true).toBe(fault === 'lose-answer');
        const stored = await store.getTask(ALICE, 't1');
        expect(stored?.seq).toBe(1);
        expect(stored?.task.status.state).toBe('TASK_STATE_WORKING');
        expect(await store.readEvents(ALICE, 't1', 0)).toHaveLength(1);
      });

      it('commit: a burst of commits of several tasks (one batch where the store batches) is applied once each', async () => {
        const { store } = h();
        const ids = ['a', 'b', 'c', 'd'];
        for (const id of ids) await created(store, id);
        const writes = ids.map((id) => working(id, `w-${id}`));
        h().faults!.arm(fault);
        const first = await Promise.allSettled(writes.map((w, i) => store.commit(ALICE, ids[i]!, w)));
        expect(h().faults!.pending).toBe(0);
        // The callers whose answer was an error retry the same write.
        for (const [i, r] of first.entries()) {
          const res = r.status === 'fulfilled' ? r.value : await store.commit(ALICE, ids[i]!, writes[i]!);
          expect(res.ok).toBe(true);
        }
        for (const id of ids) {
          expect((await store.getTask(ALICE, id))?.seq).toBe(1);
          expect(await store.readEvents(ALICE, id, 0)).toHaveLength(1);
        }
      });

      it('createTask (keyed): the retry creates nothing more and is answered as created', async () => {
        const { store } = h();
        const input = { task: makeTask('t1'), claim: claimOf(keyOf(1), 'm-t1', HOUR) };
        const r = await faultThenRetry(h(), fault, () => store.createTask(ALICE, input));
        expect(r.outcome).toBe('created');
        if (r.outcome === 'created') {
          expect(r.landedEarlier === true).toBe(fault === 'lose-answer');
          expect(r.record).toMatchObject({ fence: 1, seq: 0 });
        }
        expect((await store.getKey(ALICE, keyOf(1)))?.taskId).toBe('t1');
        expect((await store.listTasks(ALICE, { pageSize: 10 })).totalSize).toBe(1);
        // Another send presenting the key still finds it held by the first.
        const other = await store.createTask(ALICE, { task: makeTask('t2'), claim: input.claim });
        expect(other.outcome).toBe('held');
      });

      it('createTask (unkeyed): the retry creates nothing more and is answered as created', async () => {
        const { store } = h();
        const input = { task: makeTask('t1') };
        const r = await faultThenRetry(h(), fault, () => store.createTask(ALICE, input));
        expect(r.outcome).toBe('created');
        if (r.outcome === 'created') expect(r.landedEarlier === true).toBe(fault === 'lose-answer');
        expect((await store.listTasks(ALICE, { pageSize: 10 })).totalSize).toBe(1);
      });

      it('claimKey: the retry finds the key held by the same message and task', async () => {
        const { store } = h();
        await created(store);
        const input = { claim: claimOf(keyOf(2), 'm-2', HOUR), taskId: 't1' };
        const r = await faultThenRetry(h(), fault, () => store.claimKey(ALICE, input));
        if (fault === 'fail-before') expect(r.outcome).toBe('claimed');
        else expect(r).toMatchObject({ outcome: 'held', key: { messageId: 'm-2', taskId: 't1' } });
      });

      it('recordStep: the retry finds the step it recorded, with the same result', async () => {
        const { store } = h();
        await created(store);
        const step = { name: 'charge', fence: 1, result: { id: 'ch_1' } };
        const r = await faultThenRetry(h(), fault, () => store.recordStep(ALICE, 't1', step));
        expect(r.outcome).toBe(fault === 'lose-answer' ? 'exists' : 'recorded');
        expect((await store.getStep(ALICE, 't1', 'charge'))?.result).toEqual({ id: 'ch_1' });
      });

      it('writeStepAttempt: the retry is answered written, and the attempt is as one write left it', async () => {
        const { store } = h();
        await created(store);
        const start = { name: 'charge', fence: 1, attempt: 1, state: 'started' as const };
        const r = await faultThenRetry(h(), fault, () => store.writeStepAttempt(ALICE, 't1', start));
        expect(r).toMatchObject({ outcome: 'written', record: { attempt: 1, state: 'started', fence: 1 } });
        const failed = { ...start, state: 'failed' as const };
        const f = await faultThenRetry(h(), fault, () => store.writeStepAttempt(ALICE, 't1', failed));
        expect(f).toMatchObject({ outcome: 'written', record: { attempt: 1, state: 'failed' } });
        expect(await store.getStepAttempt(ALICE, 't1', 'charge')).toMatchObject({
          attempt: 1,
          state: 'failed',
        });
      });

      it('renewLease: the retry renews, and the lease is as one renewal left it', async () => {
        const { store, clock } = h();
        await created(store);
        clock.advance(1000);
        const r = await faultThenRetry(h(), fault, () => store.renewLease(ALICE, 't1', 1, 'w#1', 30_000));
        expect(r).toBe(true);
        expect((await store.getTask(ALICE, 't1'))?.lease).toEqual({
          owner: 'w#1',
          expiresAt: clock.now() + 30_000,
        });
      });

      it('releaseClaim: the retry releases nothing more; task and key are gone', async () => {
        const { store } = h();
        await store.createTask(ALICE, { task: makeTask('t1'), claim: claimOf(keyOf(3), 'm-t1', HOUR) });
        const r = await faultThenRetry(h(), fault, () => store.releaseClaim(ALICE, 't1', keyOf(3)));
        expect(r).toBe(fault === 'fail-before');
        expect(await store.getTask(ALICE, 't1')).toBeUndefined();
        expect(await store.getKey(ALICE, keyOf(3))).toBeUndefined();
      });

      it('purgeExpired: the retry leaves the state one purge leaves', async () => {
        const { store, clock } = h();
        await store.createTask(ALICE, {
          task: makeTask('t1'),
          claim: claimOf(keyOf(4), 'm-t1', clock.now() + HOUR),
        });
        const done = withState(makeTask('t1'), 'TASK_STATE_COMPLETED');
        expect((await store.commit(ALICE, 't1', { expectFence: 1, task: done, events: [] })).ok).toBe(true);
        clock.advance(2 * DAY);
        const policy = { terminalMaxAgeMs: DAY, tombstoneMaxAgeMs: 7 * DAY };
        const r = await faultThenRetry(h(), fault, () => store.purgeExpired(policy));
        expect(r.complete).toBe(true);
        expect(await store.getTask(ALICE, 't1')).toBeUndefined();
        expect(await store.getKey(ALICE, keyOf(4))).toMatchObject({ tombstone: true, taskId: 't1' });
      });

      it('recordParentRenewal and tryLead: the retry answers as the first application would', async () => {
        const { store, clock } = h();
        await created(store);
        expect(await faultThenRetry(h(), fault, () => store.recordParentRenewal(ALICE, 't1'))).toBe(true);
        expect(await store.lastParentRenewal(ALICE, 't1')).toBe(clock.now());
        expect(await faultThenRetry(h(), fault, () => store.tryLead('retention', 'r1', 60_000))).toBe(true);
        // A store one process uses (memory) lets anyone lead; a shared one keeps r1 the leader.
        if (store.capabilities.sharedAcrossProcesses)
          expect(await store.tryLead('retention', 'r2', 60_000)).toBe(false);
      });
    });
  }

  it('a finished task takes no second terminal write, whatever its write id', async () => {
    const { store } = h();
    await created(store);
    const done = withState(makeTask('t1'), 'TASK_STATE_COMPLETED');
    const first = await store.commit(ALICE, 't1', {
      expectFence: 1,
      task: done,
      events: [statusEvent(done, 'TASK_STATE_COMPLETED')],
      writeId: 'end-1',
      lease: null,
    });
    expect(first.ok).toBe(true);
    const failed = withState(makeTask('t1'), 'TASK_STATE_FAILED');
    const second = await store.commit(ALICE, 't1', {
      expectFence: 1,
      task: failed,
      events: [statusEvent(failed, 'TASK_STATE_FAILED')],
      writeId: 'end-2',
    });
    expect(second).toMatchObject({
      ok: false,
      current: { seq: 1, task: { status: { state: 'TASK_STATE_COMPLETED' } } },
    });
    // The same write again is recognised as the one that landed.
    const again = await store.commit(ALICE, 't1', {
      expectFence: 1,
      task: done,
      events: [statusEvent(done, 'TASK_STATE_COMPLETED')],
      writeId: 'end-1',
    });
    expect(again).toMatchObject({ ok: true, landedEarlier: true, record: { seq: 1 } });
    expect(await store.readEvents(ALICE, 't1', 0)).toHaveLength(1);
  });

  it('a write id the store cannot keep is refused before anything is written', async () => {
    const { store } = h();
    await created(store);
    const bad = { ...working('t1', 'x'), writeId: 'x'.repeat(129) };
    await expect(store.commit(ALICE, 't1', bad)).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
    expect((await store.getTask(ALICE, 't1'))?.seq).toBe(0);
  });
}
