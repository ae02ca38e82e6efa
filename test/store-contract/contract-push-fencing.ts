/**
 * Contract: push claims as fences, and outcomes whose answer was lost (ADR 0056). A claim's name fences it: a
 * dispatcher confirms its claim right before each POST (`sending`), and a claim that lapsed and was taken, even
 * by the same dispatcher under a new name, confirms nothing. Every outcome may be recorded again because its
 * answer never arrived (a connection lost after COMMIT): a repeat of one that landed is answered true and
 * changes nothing, so no event is counted, failed or given up twice and no work that happened reads as lost.
 */
import { describe, expect, it } from 'vitest';
import type { PushOutcome } from '../../src/store/push-delivery.js';
import type { TaskStore } from '../../src/store/task-store.js';
import { ALICE, makeTask, statusEvent, withState } from './fixtures/tasks.js';
import type { MakeStore } from './harness.js';
import { useStore } from './harness.js';

const CLAIM = 30_000;

/** A task with one webhook `c1` and `n` events, all undelivered. */
async function taskWithEvents(store: TaskStore, id: string, n: number): Promise<void> {
  await store.createTask(ALICE, {
    task: makeTask(id),
    pushConfigs: [{ id: 'c1', url: 'https://h.example/1' }],
  });
  const task = withState(makeTask(id), 'TASK_STATE_WORKING');
  const events = Array.from({ length: n }, (_, i) => statusEvent(task, 'TASK_STATE_WORKING', `e${i}`));
  const res = await store.commit(ALICE, id, { expectFence: 1, task, events });
  if (!res.ok) throw new Error('commit refused');
}

/** Registers the fencing and lost-answer tests. */
export function pushFencingContract(make: MakeStore): void {
  const h = useStore(make);
  const record = (store: TaskStore, claim: string, outcome: PushOutcome) =>
    store.recordPushDelivery(ALICE, 't1', 'c1', claim, outcome);
  const state = (store: TaskStore) => store.getPushDelivery(ALICE, 't1', 'c1');

  describe('a claim confirmed before each send', () => {
    it('confirms only the holder, for the next event, and extends the claim', async () => {
      const { store, clock } = h();
      await taskWithEvents(store, 't1', 2);
      await store.claimPushDeliveries('d#1', 1000, 10);
      const sending = (claim: string, seq: number) =>
        record(store, claim, { kind: 'sending', seq, claimMs: 1000 });
      expect(await sending('d#1', 2)).toBe(false); // not the next event
      expect(await sending('other#1', 1)).toBe(false); // not the holder
      clock.advance(900);
      expect(await sending('d#1', 1)).toBe(true);
      clock.advance(900); // past the claim as taken, within the confirmed one
      expect(await store.claimPushDeliveries('other#1', 1000, 10)).toEqual([]);
      // Confirming moves nothing: the event is still the next one.
      expect(await state(store)).toMatchObject({ deliveredSeq: 0, attempts: 0 });
    });

    it("fences out a claim that lapsed and was taken, even by the same dispatcher's next claim", async () => {
      const { store, clock } = h();
      await taskWithEvents(store, 't1', 2);
      await store.claimPushDeliveries('d#1', CLAIM, 10);
      clock.advance(CLAIM);
      expect(await store.claimPushDeliveries('d#2', CLAIM, 10)).toHaveLength(1);
      expect(await record(store, 'd#1', { kind: 'sending', seq: 1, claimMs: CLAIM })).toBe(false);
      expect(await record(store, 'd#1', { kind: 'delivered', seq: 1, claimMs: CLAIM })).toBe(false);
      expect(await record(store, 'd#2', { kind: 'sending', seq: 1, claimMs: CLAIM })).toBe(true);
      expect(await record(store, 'd#2', { kind: 'delivered', seq: 1, claimMs: CLAIM })).toBe(true);
      expect(await record(store, 'd#1', { kind: 'delivered', seq: 2, claimMs: CLAIM })).toBe(false);
      expect(await state(store)).toMatchObject({ deliveredSeq: 1 });
    });

    it('confirms a lapsed claim nobody took (it is still the only one), and nothing after a release', async () => {
      const { store, clock } = h();
      await taskWithEvents(store, 't1', 1);
      await store.claimPushDeliveries('d#1', 1000, 10);
      clock.advance(5000);
      expect(await record(store, 'd#1', { kind: 'sending', seq: 1, claimMs: 1000 })).toBe(true);
      expect(await store.claimPushDeliveries('other#1', 1000, 10)).toEqual([]);
      expect(await record(store, 'd#1', { kind: 'released' })).toBe(true);
      expect(await record(store, 'd#1', { kind: 'sending', seq: 1, claimMs: 1000 })).toBe(false);
      expect(await store.claimPushDeliveries('other#1', 1000, 10)).toHaveLength(1);
    });
  });

  describe('an outcome recorded again (its answer was lost)', () => {
    it('a repeated acknowledgement is answered as landed and moves the cursor once', async () => {
      const { store } = h();
      await taskWithEvents(store, 't1', 3);
      await store.claimPushDeliveries('d#1', CLAIM, 10);
      const ack = (seq: number) => record(store, 'd#1', { kind: 'delivered', seq, claimMs: CLAIM });
      expect(await ack(1)).toBe(true);
      expect(await ack(1)).toBe(true);
      expect(await state(store)).toMatchObject({ deliveredSeq: 1, attempts: 0, givenUpEvents: 0 });
      expect(await ack(2)).toBe(true);
      expect(await ack(2)).toBe(true);
      expect(await ack(3)).toBe(true);
      expect(await state(store)).toMatchObject({ deliveredSeq: 3, taskSeq: 3 });
    });

    it('a repeated failure is answered as landed and counts one attempt', async () => {
      const { store, clock } = h();
      await taskWithEvents(store, 't1', 1);
      await store.claimPushDeliveries('d#1', CLAIM, 10);
      const failed: PushOutcome = { kind: 'failed', seq: 1, error: 'HTTP 503', retryAt: clock.now() + 500 };
      expect(await record(store, 'd#1', failed)).toBe(true);
      const after = await state(store);
      expect(after).toMatchObject({ attempts: 1, lastError: 'HTTP 503', nextAttemptAt: clock.now() + 500 });
      clock.advance(10);
      expect(await record(store, 'd#1', failed)).toBe(true);
      expect(await state(store)).toEqual(after);
      // Once the webhook is claimed again, the old claim's repeat is no longer its business.
      clock.advance(500);
      expect(await store.claimPushDeliveries('d#2', CLAIM, 10)).toHaveLength(1);
      expect(await record(store, 'd#1', failed)).toBe(false);
      expect(await state(store)).toEqual(after);
    });

    it('a repeated give-up is answered as landed and gives the events up once', async () => {
      const { store, clock } = h();
      await taskWithEvents(store, 't1', 3);
      await store.claimPushDeliveries('d#1', CLAIM, 10);
      const givenUp: PushOutcome = {
        kind: 'given-up',
        seq: 1,
        through: 'backlog',
        reason: 'expired',
        error: 'timeout',
      };
      expect(await record(store, 'd#1', givenUp)).toBe(true);
      const after = await state(store);
      expect(after).toMatchObject({ deliveredSeq: 3, givenUpEvents: 3 });
      clock.advance(10);
      expect(await record(store, 'd#1', givenUp)).toBe(true);
      expect(await state(store)).toEqual(after);
      // A give-up of one event, repeated.
      await taskWithEvents(store, 't2', 2);
      await store.claimPushDeliveries('d#2', CLAIM, 10);
      const one: PushOutcome = {
        kind: 'given-up',
        seq: 1,
        through: 'event',
        reason: 'rejected',
        error: 'HTTP 400',
      };
      const rec2 = (o: PushOutcome) => store.recordPushDelivery(ALICE, 't2', 'c1', 'd#2', o);
      expect(await rec2(one)).toBe(true);
      expect(await rec2(one)).toBe(true);
      expect(await store.getPushDelivery(ALICE, 't2', 'c1')).toMatchObject({
        deliveredSeq: 1,
        givenUpEvents: 1,
      });
    });

    it('a repeated release is answered as landed; a release by a claim that never held it is not', async () => {
      const { store } = h();
      await taskWithEvents(store, 't1', 1);
      await store.claimPushDeliveries('d#1', CLAIM, 10);
      expect(await record(store, 'd#1', { kind: 'released' })).toBe(true);
      expect(await record(store, 'd#1', { kind: 'released' })).toBe(true);
      expect(await record(store, 'stranger#1', { kind: 'released' })).toBe(false);
      expect(await store.claimPushDeliveries('d#2', CLAIM, 10)).toHaveLength(1);
      expect(await record(store, 'd#1', { kind: 'released' })).toBe(false);
      // d#2's claim was not touched by d#1's late repeat.
      expect(await record(store, 'd#2', { kind: 'sending', seq: 1, claimMs: CLAIM })).toBe(true);
    });
  });

  describe('a config created on a finished task', () => {
    it("starts at the task's last event: its history is not replayed (ADR 0058)", async () => {
      const { store } = h();
      await taskWithEvents(store, 't1', 2);
      const done = withState(makeTask('t1'), 'TASK_STATE_COMPLETED');
      const res = await store.commit(ALICE, 't1', {
        expectFence: 1,
        task: done,
        events: [statusEvent(done, 'TASK_STATE_COMPLETED')],
      });
      expect(res.ok).toBe(true);
      // The inline config saw the task live: it still gets every event.
      expect(await state(store)).toMatchObject({ deliveredSeq: 0, taskSeq: 3 });
      await store.putPushConfig(ALICE, 't1', { id: 'late', url: 'https://h.example/late' });
      expect(await store.getPushDelivery(ALICE, 't1', 'late')).toMatchObject({ deliveredSeq: 3, taskSeq: 3 });
      const claimed = await store.claimPushDeliveries('d#1', CLAIM, 10);
      expect(claimed.map((d) => d.configId)).toEqual(['c1']);
      // Replacing it keeps its cursor.
      await store.putPushConfig(ALICE, 't1', { id: 'late', url: 'https://h.example/moved' });
      expect(await store.getPushDelivery(ALICE, 't1', 'late')).toMatchObject({ deliveredSeq: 3 });
    });
  });
}
