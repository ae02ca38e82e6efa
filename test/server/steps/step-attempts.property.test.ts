/**
 * A property over random failure sequences (docs/semantics.md §4 "Durable steps", ADR 0122, ADR 0123): a step
 * with a random retry policy and semantics meets a random sequence of attempt outcomes (returned, threw, the
 * worker killed before its attempt record, during `fn`, or after `fn` before its result record), each kill
 * followed by a takeover and the heir calling the step again. Whatever the sequence:
 * - `fn` is called at most the policy's attempts plus the interrupted ones;
 * - the attempts `fn` is told are 1, 2, 3, ... in order, one call per attempt record;
 * - an at-most-once step never calls `fn` again once an attempt was interrupted.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StepSemantics } from '../../../src/server/step-options.js';
import { ManualClock } from '../../../src/store/clock.js';
import { MemoryTaskStore } from '../../../src/store/memory/memory-task-store.js';
import { hangingStore, never, newTask, StepWorker, takeOver } from './step-host.js';

type Outcome = 'returned' | 'threw' | 'killed-before' | 'killed-during' | 'killed-after';

const OUTCOMES: readonly Outcome[] = ['returned', 'threw', 'killed-before', 'killed-during', 'killed-after'];

interface Run {
  readonly calls: number[];
  readonly interrupted: number;
  readonly end: unknown;
}

/** Plays `outcomes` against one step until it settles (or the outcomes run out, then it returns). */
async function play(semantics: StepSemantics, maxAttempts: number, outcomes: Outcome[]): Promise<Run> {
  const store = new MemoryTaskStore({ clock: new ManualClock() });
  await newTask(store, 't1');
  const queue = [...outcomes];
  const calls: number[] = [];
  let interrupted = 0;
  let fence = 1;
  const options = { semantics, retry: { maxAttempts, initialDelayMs: 0 } };
  try {
    for (let lives = 0; lives < 50; lives++) {
      let killed: (() => void) | undefined;
      const wasKilled = new Promise<void>((resolve) => (killed = resolve));
      let hangRecord = false;
      const worker = new StepWorker(
        hangingStore(store, (method, args) => {
          const input = args[2] as { state?: string } | undefined;
          if (method === 'writeStepAttempt' && input?.state === 'started' && queue[0] === 'killed-before') {
            queue.shift();
            killed?.();
            return true;
          }
          if (method === 'recordStep' && hangRecord) {
            killed?.();
            return true;
          }
          return false;
        }),
        't1',
        fence,
      );
      const run = worker.steps.run(
        'pay',
        (_key, a) => {
          calls.push(a.attempt);
          const next = queue.shift() ?? 'returned';
          switch (next) {
            case 'threw':
              throw new Error(`declined at ${a.attempt}`);
            case 'killed-during':
              interrupted++;
              killed?.();
              return never<string>();
            case 'killed-after':
              interrupted++;
              hangRecord = true;
              return `paid at ${a.attempt}`;
            case 'returned':
            case 'killed-before': // taken when its attempt was to be recorded; here only when it ran out
              return `paid at ${a.attempt}`;
          }
        },
        options,
      );
      const settled = run.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
      const first = await Promise.race([settled, wasKilled.then(() => 'killed' as const)]);
      if (first !== 'killed') return { calls, interrupted, end: first };
      fence = await takeOver(store, 't1');
    }
    throw new Error('too many lives');
  } finally {
    await store.close();
  }
}

describe('step attempts over random failure sequences', () => {
  it('never call fn more than the policy allows plus the interrupted attempts, nor twice per attempt', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<StepSemantics>('at-least-once', 'at-most-once'),
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.constantFrom(...OUTCOMES), { maxLength: 12 }),
        async (semantics, maxAttempts, outcomes) => {
          const r = await play(semantics, maxAttempts, outcomes);
          expect(r.calls.length).toBeLessThanOrEqual(maxAttempts + r.interrupted);
          // One fn call per attempt record, numbered on: never two calls for one attempt.
          expect(r.calls).toEqual(r.calls.map((_, i) => i + 1));
          expect(new Set(r.calls).size).toBe(r.calls.length);
          if (semantics === 'at-most-once') {
            // Once an attempt is interrupted, fn is never called again.
            expect(r.interrupted).toBeLessThanOrEqual(1);
            if (r.interrupted === 1) expect(r.end).toMatchObject({ error: { name: 'StepInterruptedError' } });
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a kill before the attempt record costs no attempt: the heir runs attempt 1', async () => {
    const r = await play('at-most-once', 1, ['killed-before', 'killed-before', 'returned']);
    expect(r.calls).toEqual([1]);
    expect(r.end).toEqual({ value: 'paid at 1' });
  });
});
