/**
 * The backoff schedule of worker writes (ADR 0029): 50 ms doubling to a 2 s cap, each delay jittered into the
 * upper half of its window; 10 s of waiting for a write, 60 s for the last-resort FAILED write.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_WRITE_RETRY, retryDelay } from '../../../src/server/runner/write-retry.js';

describe('worker write backoff', () => {
  it('the default schedule is the one ADR 0029 states', () => {
    expect(DEFAULT_WRITE_RETRY).toMatchObject({
      firstDelayMs: 50,
      maxDelayMs: 2000,
      writeBudgetMs: 10_000,
      failBudgetMs: 60_000,
    });
    const top = { ...DEFAULT_WRITE_RETRY, random: () => 1 };
    expect([0, 1, 2, 3, 4, 5, 6, 7, 40].map((a) => retryDelay(a, top))).toEqual([
      50, 100, 200, 400, 800, 1600, 2000, 2000, 2000,
    ]);
  });

  it('every delay lies in the upper half of its doubling window, capped', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 200 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 100_000 }),
        (attempt, r, first, max) => {
          const policy = { ...DEFAULT_WRITE_RETRY, firstDelayMs: first, maxDelayMs: max, random: () => r };
          const window = Math.min(max, first * 2 ** Math.min(attempt, 30));
          const d = retryDelay(attempt, policy);
          expect(d).toBeGreaterThanOrEqual(Math.round(window / 2));
          expect(d).toBeLessThanOrEqual(window);
        },
      ),
    );
  });
});
