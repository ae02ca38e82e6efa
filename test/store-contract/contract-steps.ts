/**
 * Contract: durable steps (docs/semantics.md §4 "Durable steps", ADR 0036). `recordStep` writes a step's JSON
 * result once per (task, name), only while the task's fence equals the recording worker's; a repeat of the name
 * returns the first record whatever the caller's fence, so a worker resumed under a new fence reads the result
 * its predecessor recorded instead of running the step again. Steps go with their task.
 */
import { describe, expect, it } from 'vitest';
import type { StepResult, TaskStore } from '../../src/store/task-store.js';
import { ALICE, BOB, DAY, HOUR, claimOf, keyOf, makeTask, statusEvent, withState } from './fixtures/tasks.js';
import type { MakeStore, StoreHarness } from './harness.js';
import { useStore } from './harness.js';

const RACERS = 64;

/** JSON values of every kind, each of which must come back exactly as recorded. */
const RESULTS: readonly unknown[] = [
  {
    nested: { deeper: { list: [1, 'two', { three: [true, false, null] }], empty: {}, none: [] } },
    order: { z: 1, a: 2, m: 3 },
  },
  [1, -2.5, 0, 1e-7, 1.7976931348623157e308, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER],
  'unicode: héllo, 日本語, emoji 🎉👩‍👩‍👧, combining é, NUL \u0000, quote " backslash \\ newline \n tab \t',
  '',
  0,
  -1.25,
  true,
  false,
  null,
  [],
  {},
  { 'key with spaces': 'v', '': 'empty key', ключ: 'значение' },
];

/** The stores to race on: the harness store, plus a peer on the same database where the backend has one. */
async function racers(h: StoreHarness): Promise<{ stores: TaskStore[]; close: () => Promise<void> }> {
  if (!h.openPeer) return { stores: [h.store], close: () => Promise.resolve() };
  const peer = await h.openPeer();
  return { stores: [h.store, peer], close: () => peer.close() };
}

/** Registers the durable-step tests. */
export function stepContract(make: MakeStore): void {
  const h = useStore(make);

  describe('recordStep and getStep', () => {
    it('records a step once under the current fence, and getStep reads it', async () => {
      const { store, clock } = h();
      await store.createTask(ALICE, { task: makeTask('t1') });
      expect(await store.getStep(ALICE, 't1', 'charge')).toBeUndefined();
      clock.advance(1000);
      const step = {
        taskId: 't1',
        name: 'charge',
        result: { id: 'ch_1' },
        fence: 1,
        recordedAt: clock.now(),
      };
      expect(
        await store.recordStep(ALICE, 't1', { name: 'charge', fence: 1, result: { id: 'ch_1' } }),
      ).toEqual({
        outcome: 'recorded',
        step,
      });
      expect(await store.getStep(ALICE, 't1', 'charge')).toEqual(step);
      // Scoped like everything else: another principal does not see it.
      expect(await store.getStep(BOB, 't1', 'charge')).toBeUndefined();
      expect(await store.getStep(ALICE, 't1', 'refund')).toBeUndefined();
    });

    it('round-trips JSON results exactly: nesting, arrays, unicode, numbers, booleans, null', async () => {
      const { store } = h();
      await store.createTask(ALICE, { task: makeTask('t1') });
      for (const [i, result] of RESULTS.entries()) {
        const r = await store.recordStep(ALICE, 't1', { name: `s${i}`, fence: 1, result });
        expect(r.outcome).toBe('recorded');
        expect(r.outcome === 'recorded' && r.step.result).toStrictEqual(result);
      }
      for (const [i, result] of RESULTS.entries()) {
        const step = await store.getStep(ALICE, 't1', `s${i}`);
        expect(step?.result).toStrictEqual(result);
        // Key order is part of "exactly": JSON.stringify of what comes back is what went in.
        expect(JSON.stringify(step?.result)).toBe(JSON.stringify(result));
      }
    });

    it('hands back its own copy: changing the recorded value afterwards changes nothing stored', async () => {
      const { store } = h();
      await store.createTask(ALICE, { task: makeTask('t1') });
      const result = { list: [1, 2] };
      const r = await store.recordStep(ALICE, 't1', { name: 's', fence: 1, result });
      result.list.push(3);
      expect(r.outcome === 'recorded' && r.step.result).toEqual({ list: [1, 2] });
      expect((await store.getStep(ALICE, 't1', 's'))?.result).toEqual({ list: [1, 2] });
    });

    it('a repeated name returns the first record, also to a worker resumed under a newer fence', async () => {
      const { store, clock } = h();
      const task = makeTask('t1');
      await store.createTask(ALICE, { task });
      const first = await store.recordStep(ALICE, 't1', { name: 'charge', fence: 1, result: 'first' });
      expect(first.outcome).toBe('recorded');
      const step = first.outcome === 'recorded' ? first.step : undefined;
      clock.advance(1000);
      expect(await store.recordStep(ALICE, 't1', { name: 'charge', fence: 1, result: 'second' })).toEqual({
        outcome: 'exists',
        step,
      });
      // Taken over: the new worker (fence 2) runs the agent again and reaches the step.
      expect((await store.commit(ALICE, 't1', { expectFence: 1, nextFence: 2, task, events: [] })).ok).toBe(
        true,
      );
      expect(await store.recordStep(ALICE, 't1', { name: 'charge', fence: 2, result: 'third' })).toEqual({
        outcome: 'exists',
        step,
      });
      // Even the lost worker, fenced off, reads it rather than being told nothing happened.
      expect(await store.recordStep(ALICE, 't1', { name: 'charge', fence: 1, result: 'x' })).toEqual({
        outcome: 'exists',
        step,
      });
      // A new step of the new worker is recorded under its fence.
      expect(await store.recordStep(ALICE, 't1', { name: 'ship', fence: 2, result: 1 })).toMatchObject({
        outcome: 'recorded',
        step: { fence: 2, result: 1 },
      });
    });

    it('is fenced for a stale fence, a future fence, another scope and a missing task, and writes nothing', async () => {
      const { store } = h();
      const task = makeTask('t1');
      await store.createTask(ALICE, { task });
      await store.commit(ALICE, 't1', { expectFence: 1, nextFence: 2, task, events: [] });
      const fenced: StepResult = { outcome: 'fenced' };
      expect(await store.recordStep(ALICE, 't1', { name: 's', fence: 1, result: 1 })).toEqual(fenced);
      expect(await store.recordStep(ALICE, 't1', { name: 's', fence: 3, result: 1 })).toEqual(fenced);
      expect(await store.recordStep(BOB, 't1', { name: 's', fence: 2, result: 1 })).toEqual(fenced);
      expect(await store.recordStep(ALICE, 'missing', { name: 's', fence: 1, result: 1 })).toEqual(fenced);
      expect(await store.getStep(ALICE, 't1', 's')).toBeUndefined();
      expect(await store.getStep(BOB, 't1', 's')).toBeUndefined();
      expect(await store.getStep(ALICE, 'missing', 's')).toBeUndefined();
    });

    it('refuses a step it cannot record exactly, with a structured error, and records nothing', async () => {
      const { store } = h();
      await store.createTask(ALICE, { task: makeTask('t1') });
      const bad: { name: string; fence: number; result: unknown }[] = [
        { name: '', fence: 1, result: 1 },
        { name: 'nul\u0000inside', fence: 1, result: 1 },
        { name: 'lone \ud800 surrogate', fence: 1, result: 1 },
        { name: 'x'.repeat(513), fence: 1, result: 1 },
        { name: 's', fence: 0, result: 1 },
        { name: 's', fence: 1.5, result: 1 },
        { name: 's', fence: 1, result: undefined },
        { name: 's', fence: 1, result: 10n },
        { name: 's', fence: 1, result: Number.NaN },
        { name: 's', fence: 1, result: { at: new Date(0) } },
        { name: 's', fence: 1, result: { f: () => 1 } },
      ];
      for (const input of bad) {
        await expect(store.recordStep(ALICE, 't1', input)).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
      }
      expect(await store.getStep(ALICE, 't1', 's')).toBeUndefined();
      expect(await store.getStep(ALICE, 't1', '')).toBeUndefined();
    });

    it('keys steps by any well-formed name, byte for byte: unicode, astral characters, 512 characters', async () => {
      const { store } = h();
      await store.createTask(ALICE, { task: makeTask('t1') });
      // The last two are one letter composed two ways: distinct names, never normalised into one.
      for (const name of ['支払い 🎉', 'step:4/charge?x=1', 'y'.repeat(512), '\u00e9', 'e\u0301']) {
        expect(await store.recordStep(ALICE, 't1', { name, fence: 1, result: name })).toMatchObject({
          outcome: 'recorded',
        });
        expect((await store.getStep(ALICE, 't1', name))?.name).toBe(name);
      }
    });
  });

  describe('steps go with their task', () => {
    it('are deleted when retention purges the task, and a task reusing the id starts with none', async () => {
      const { store, clock } = h();
      const task = makeTask('t1');
      await store.createTask(ALICE, { task });
      await store.recordStep(ALICE, 't1', { name: 's', fence: 1, result: 'kept?' });
      await store.commit(ALICE, 't1', {
        expectFence: 1,
        task: withState(task, 'TASK_STATE_COMPLETED'),
        events: [statusEvent(task, 'TASK_STATE_COMPLETED')],
      });
      clock.advance(2 * DAY);
      expect((await store.purgeExpired({ terminalMaxAgeMs: DAY })).tasks).toBe(1);
      expect(await store.getStep(ALICE, 't1', 's')).toBeUndefined();
      await store.createTask(ALICE, { task });
      expect(await store.getStep(ALICE, 't1', 's')).toBeUndefined();
      expect((await store.recordStep(ALICE, 't1', { name: 's', fence: 1, result: 'new' })).outcome).toBe(
        'recorded',
      );
    });

    it('are deleted when the claim is released', async () => {
      const { store, clock } = h();
      const claim = claimOf(keyOf(1), 'm1', clock.now() + HOUR);
      await store.createTask(ALICE, { task: makeTask('t1'), claim });
      await store.recordStep(ALICE, 't1', { name: 's', fence: 1, result: 1 });
      expect(await store.releaseClaim(ALICE, 't1', keyOf(1))).toBe(true);
      expect(await store.getStep(ALICE, 't1', 's')).toBeUndefined();
      await store.createTask(ALICE, { task: makeTask('t1'), claim });
      expect(await store.getStep(ALICE, 't1', 's')).toBeUndefined();
    });
  });

  describe('racing recordStep', () => {
    it(`${RACERS} racing records of one name: exactly one recorded, every other gets its result`, async () => {
      const { stores, close } = await racers(h());
      try {
        const { store } = h();
        await store.createTask(ALICE, { task: makeTask('t1') });
        const results = await Promise.all(
          Array.from({ length: RACERS }, (_, i) =>
            stores[i % stores.length]!.recordStep(ALICE, 't1', {
              name: 'charge',
              fence: 1,
              result: { by: i },
            }),
          ),
        );
        const recorded = results.flatMap((r) => (r.outcome === 'recorded' ? [r.step] : []));
        expect(recorded).toHaveLength(1);
        const step = recorded[0]!;
        for (const r of results) if (r.outcome !== 'recorded') expect(r).toEqual({ outcome: 'exists', step });
        expect(await store.getStep(ALICE, 't1', 'charge')).toEqual(step);
      } finally {
        await close();
      }
    });

    it('records racing a takeover: a step recorded under the old fence is visible once the takeover is in', async () => {
      const { stores, close } = await racers(h());
      try {
        const { store } = h();
        const task = makeTask('t1');
        await store.createTask(ALICE, { task });
        const names = Array.from({ length: RACERS }, (_, i) => `s${i}`);
        const steps = names.map((name, i) =>
          stores[i % stores.length]!.recordStep(ALICE, 't1', { name, fence: 1, result: i }),
        );
        // What the new worker sees right after its takeover: it runs every step it does not find here. So a step
        // the old worker is told was recorded must already be visible then, or its effect would happen twice.
        const takeover = stores[stores.length - 1]!.commit(ALICE, 't1', {
          expectFence: 1,
          nextFence: 2,
          task,
          events: [],
        });
        const seen = takeover.then((r) =>
          r.ok ? Promise.all(names.map((name) => store.getStep(ALICE, 't1', name))) : [],
        );
        const results = await Promise.all(steps);
        expect((await takeover).ok).toBe(true);
        const afterTakeover = await seen;
        for (const [i, r] of results.entries()) {
          const stored = await store.getStep(ALICE, 't1', `s${i}`);
          if (r.outcome === 'recorded') {
            expect(afterTakeover[i]).toEqual(r.step);
            expect(stored).toEqual(r.step);
          } else {
            expect(r).toEqual({ outcome: 'fenced' });
            expect(stored).toBeUndefined();
          }
        }
        // After the takeover, the old fence records nothing new.
        expect(await store.recordStep(ALICE, 't1', { name: 'late', fence: 1, result: 0 })).toEqual({
          outcome: 'fenced',
        });
      } finally {
        await close();
      }
    });
  });
}
