/**
 * Contract: durable step attempts (docs/semantics.md §4 "Durable steps", ADR 0121). `writeStepAttempt` keeps
 * where a step's latest attempt stands, a compare-and-set by attempt number under the task's fence: `started n`
 * after attempt n - 1 (or nothing), `failed n` after `started n`, a repeat of a write answered `written` with
 * nothing changed (a lost answer retried), anything else a `conflict` naming the current record. Attempts go with
 * their task, like steps.
 */
import { describe, expect, it } from 'vitest';
import type { StepAttemptInput, StepAttemptResult } from '../../src/store/step-attempts.js';
import type { TaskStore } from '../../src/store/task-store.js';
import { ALICE, BOB, DAY, HOUR, claimOf, keyOf, makeTask, statusEvent, withState } from './fixtures/tasks.js';
import type { MakeStore, StoreHarness } from './harness.js';
import { useStore } from './harness.js';

const RACERS = 32;

async function racers(h: StoreHarness): Promise<{ stores: TaskStore[]; close: () => Promise<void> }> {
  if (!h.openPeer) return { stores: [h.store], close: () => Promise.resolve() };
  const peer = await h.openPeer();
  return { stores: [h.store, peer], close: () => peer.close() };
}

const started = (attempt: number, fence = 1, name = 'charge'): StepAttemptInput => ({
  name,
  fence,
  attempt,
  state: 'started',
});
const failed = (attempt: number, fence = 1, name = 'charge'): StepAttemptInput => ({
  name,
  fence,
  attempt,
  state: 'failed',
});

/** Registers the step-attempt tests. */
export function stepAttemptContract(make: MakeStore): void {
  const h = useStore(make);

  describe('writeStepAttempt and getStepAttempt', () => {
    it('counts attempts: started 1, failed 1, started 2, and getStepAttempt reads the latest', async () => {
      const { store, clock } = h();
      await store.createTask(ALICE, { task: makeTask('t1') });
      expect(await store.getStepAttempt(ALICE, 't1', 'charge')).toBeUndefined();
      clock.advance(1000);
      const first = {
        taskId: 't1',
        name: 'charge',
        attempt: 1,
        state: 'started',
        fence: 1,
        updatedAt: clock.now(),
      };
      expect(await store.writeStepAttempt(ALICE, 't1', started(1))).toEqual({
        outcome: 'written',
        record: first,
      });
      expect(await store.getStepAttempt(ALICE, 't1', 'charge')).toEqual(first);
      clock.advance(10);
      expect(await store.writeStepAttempt(ALICE, 't1', failed(1))).toEqual({
        outcome: 'written',
        record: { ...first, state: 'failed', updatedAt: clock.now() },
      });
      clock.advance(10);
      const second = { ...first, attempt: 2, updatedAt: clock.now() };
      expect(await store.writeStepAttempt(ALICE, 't1', started(2))).toEqual({
        outcome: 'written',
        record: second,
      });
      expect(await store.getStepAttempt(ALICE, 't1', 'charge')).toEqual(second);
      // Scoped, and by name.
      expect(await store.getStepAttempt(BOB, 't1', 'charge')).toBeUndefined();
      expect(await store.getStepAttempt(ALICE, 't1', 'refund')).toBeUndefined();
      // A step's result and its attempt live side by side.
      expect((await store.recordStep(ALICE, 't1', { name: 'charge', fence: 1, result: 1 })).outcome).toBe(
        'recorded',
      );
      expect(await store.getStepAttempt(ALICE, 't1', 'charge')).toEqual(second);
      expect((await store.getStep(ALICE, 't1', 'charge'))?.result).toBe(1);
    });

    it('answers a repeated write as written and changes nothing (a lost answer retried)', async () => {
      const { store, clock } = h();
      await store.createTask(ALICE, { task: makeTask('t1') });
      const w = await store.writeStepAttempt(ALICE, 't1', started(1));
      clock.advance(50);
      expect(await store.writeStepAttempt(ALICE, 't1', started(1))).toEqual(w);
      await store.writeStepAttempt(ALICE, 't1', failed(1));
      const f = await store.getStepAttempt(ALICE, 't1', 'charge');
      clock.advance(50);
      expect(await store.writeStepAttempt(ALICE, 't1', failed(1))).toEqual({ outcome: 'written', record: f });
      expect(await store.getStepAttempt(ALICE, 't1', 'charge')).toEqual(f);
    });

    it('refuses writes out of order as a conflict naming the current record, and writes nothing', async () => {
      const { store } = h();
      await store.createTask(ALICE, { task: makeTask('t1') });
      expect(await store.writeStepAttempt(ALICE, 't1', started(2))).toEqual({
        outcome: 'conflict',
        current: undefined,
      });
      expect(await store.writeStepAttempt(ALICE, 't1', failed(1))).toEqual({
        outcome: 'conflict',
        current: undefined,
      });
      const w = await store.writeStepAttempt(ALICE, 't1', started(1));
      const current = w.outcome === 'written' ? w.record : undefined;
      for (const input of [started(3), failed(2)]) {
        expect(await store.writeStepAttempt(ALICE, 't1', input)).toEqual({ outcome: 'conflict', current });
      }
      expect(await store.getStepAttempt(ALICE, 't1', 'charge')).toEqual(current);
    });

    it('a worker resumed under a new fence counts on from an attempt left started', async () => {
      const { store } = h();
      const task = makeTask('t1');
      await store.createTask(ALICE, { task });
      await store.writeStepAttempt(ALICE, 't1', started(1));
      // Taken over: fence 2. The old worker's repeat of its own start is now fenced.
      expect((await store.commit(ALICE, 't1', { expectFence: 1, nextFence: 2, task, events: [] })).ok).toBe(
        true,
      );
      expect(await store.writeStepAttempt(ALICE, 't1', started(1))).toEqual({ outcome: 'fenced' });
      expect(await store.writeStepAttempt(ALICE, 't1', failed(1))).toEqual({ outcome: 'fenced' });
      // The new worker sees attempt 1 started by fence 1: it may not repeat that start as its own...
      expect(await store.writeStepAttempt(ALICE, 't1', started(1, 2))).toMatchObject({
        outcome: 'conflict',
        current: { attempt: 1, state: 'started', fence: 1 },
      });
      // ...but counts on.
      expect(await store.writeStepAttempt(ALICE, 't1', started(2, 2))).toMatchObject({
        outcome: 'written',
        record: { attempt: 2, state: 'started', fence: 2 },
      });
    });

    it('is fenced for a stale fence, a future fence, another scope and a missing task, and writes nothing', async () => {
      const { store } = h();
      const task = makeTask('t1');
      await store.createTask(ALICE, { task });
      await store.commit(ALICE, 't1', { expectFence: 1, nextFence: 2, task, events: [] });
      const fenced: StepAttemptResult = { outcome: 'fenced' };
      expect(await store.writeStepAttempt(ALICE, 't1', started(1, 1))).toEqual(fenced);
      expect(await store.writeStepAttempt(ALICE, 't1', started(1, 3))).toEqual(fenced);
      expect(await store.writeStepAttempt(BOB, 't1', started(1, 2))).toEqual(fenced);
      expect(await store.writeStepAttempt(ALICE, 'missing', started(1, 1))).toEqual(fenced);
      expect(await store.getStepAttempt(ALICE, 't1', 'charge')).toBeUndefined();
    });

    it('refuses an input it cannot honour with a structured error, and writes nothing', async () => {
      const { store } = h();
      await store.createTask(ALICE, { task: makeTask('t1') });
      const bad: unknown[] = [
        { name: '', fence: 1, attempt: 1, state: 'started' },
        { name: 'nul\u0000inside', fence: 1, attempt: 1, state: 'started' },
        { name: 'x'.repeat(513), fence: 1, attempt: 1, state: 'started' },
        { name: 's', fence: 0, attempt: 1, state: 'started' },
        { name: 's', fence: 1, attempt: 0, state: 'started' },
        { name: 's', fence: 1, attempt: 1.5, state: 'started' },
        { name: 's', fence: 1, attempt: 1_000_001, state: 'started' },
        { name: 's', fence: 1, attempt: 1, state: 'done' },
      ];
      for (const input of bad) {
        await expect(store.writeStepAttempt(ALICE, 't1', input as StepAttemptInput)).rejects.toMatchObject({
          name: 'StoreError',
          code: 'BAD_ARGUMENT',
        });
      }
      expect(await store.getStepAttempt(ALICE, 't1', 's')).toBeUndefined();
    });

    it('keeps an attempt apart from a step result of the same name and from other names', async () => {
      const { store } = h();
      await store.createTask(ALICE, { task: makeTask('t1') });
      await store.writeStepAttempt(ALICE, 't1', started(1, 1, 'a'));
      await store.writeStepAttempt(ALICE, 't1', started(1, 1, 'b'));
      await store.writeStepAttempt(ALICE, 't1', failed(1, 1, 'b'));
      expect(await store.getStep(ALICE, 't1', 'a')).toBeUndefined();
      expect(await store.getStepAttempt(ALICE, 't1', 'a')).toMatchObject({ attempt: 1, state: 'started' });
      expect(await store.getStepAttempt(ALICE, 't1', 'b')).toMatchObject({ attempt: 1, state: 'failed' });
    });
  });

  describe('attempts go with their task', () => {
    it('are deleted when retention purges the task, and a task reusing the id starts with none', async () => {
      const { store, clock } = h();
      const task = makeTask('t1');
      await store.createTask(ALICE, { task });
      await store.writeStepAttempt(ALICE, 't1', started(1));
      await store.commit(ALICE, 't1', {
        expectFence: 1,
        task: withState(task, 'TASK_STATE_COMPLETED'),
        events: [statusEvent(task, 'TASK_STATE_COMPLETED')],
      });
      clock.advance(2 * DAY);
      expect((await store.purgeExpired({ terminalMaxAgeMs: DAY })).tasks).toBe(1);
      expect(await store.getStepAttempt(ALICE, 't1', 'charge')).toBeUndefined();
      await store.createTask(ALICE, { task });
      expect(await store.getStepAttempt(ALICE, 't1', 'charge')).toBeUndefined();
      expect((await store.writeStepAttempt(ALICE, 't1', started(1))).outcome).toBe('written');
    });

    it('are deleted when the claim is released', async () => {
      const { store, clock } = h();
      const claim = claimOf(keyOf(1), 'm1', clock.now() + HOUR);
      await store.createTask(ALICE, { task: makeTask('t1'), claim });
      await store.writeStepAttempt(ALICE, 't1', started(1));
      expect(await store.releaseClaim(ALICE, 't1', keyOf(1))).toBe(true);
      expect(await store.getStepAttempt(ALICE, 't1', 'charge')).toBeUndefined();
    });
  });

  describe('racing writeStepAttempt', () => {
    it(`${RACERS} racing starts of the next attempt: one is written, the others conflict or repeat it`, async () => {
      const { stores, close } = await racers(h());
      try {
        const { store } = h();
        await store.createTask(ALICE, { task: makeTask('t1') });
        await store.writeStepAttempt(ALICE, 't1', started(1));
        await store.writeStepAttempt(ALICE, 't1', failed(1));
        const results = await Promise.all(
          Array.from({ length: RACERS }, (_, i) =>
            stores[i % stores.length]!.writeStepAttempt(ALICE, 't1', i % 2 === 0 ? started(2) : started(3)),
          ),
        );
        // Every start of 2 is the same write (same fence): all written. No start of 3 can land before a 2 did,
        // and once 2 is in, 3 follows it: so 3 is written by some, and then the later 2s conflict.
        const final = await store.getStepAttempt(ALICE, 't1', 'charge');
        expect(final?.state).toBe('started');
        for (const r of results) expect(['written', 'conflict']).toContain(r.outcome);
        const written3 = results.filter((r) => r.outcome === 'written' && r.record.attempt === 3);
        expect(final?.attempt).toBe(written3.length > 0 ? 3 : 2);
      } finally {
        await close();
      }
    });
  });
}
