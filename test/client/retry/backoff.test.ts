import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffCeiling, backoffDelay, retryDelay } from '../../../src/client/retry/backoff.js';
import { parseRetryAfter } from '../../../src/client/transport/retry-after.js';
import { RetryBudget } from '../../../src/client/retry/retry-budget.js';

const options = fc.record({
  initialMs: fc.integer({ min: 0, max: 5_000 }),
  multiplier: fc.double({ min: 1, max: 10, noNaN: true }),
  maxMs: fc.integer({ min: 0, max: 120_000 }),
});
const unit = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

describe('backoff with full jitter', () => {
  it('stays within [0, cap] for any retry number, even where the exponent overflows', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5_000 }), options, unit, (retry, o, r) => {
        const d = backoffDelay(retry, o, () => r);
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThanOrEqual(o.maxMs);
        expect(Number.isFinite(d)).toBe(true);
      }),
    );
  });

  it('has a window that never shrinks from one retry to the next, and reaches the cap', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200 }), options, (retry, o) => {
        expect(backoffCeiling(retry + 1, o)).toBeGreaterThanOrEqual(backoffCeiling(retry, o));
      }),
    );
    expect(backoffCeiling(100, { initialMs: 100, multiplier: 2, maxMs: 5_000 })).toBe(5_000);
  });

  it('is full jitter: the random unit maps linearly onto [0, window)', () => {
    expect(backoffDelay(3, { initialMs: 100, multiplier: 2, maxMs: 10_000 }, () => 0)).toBe(0);
    expect(backoffDelay(3, { initialMs: 100, multiplier: 2, maxMs: 10_000 }, () => 0.5)).toBe(400);
    expect(backoffDelay(3, { initialMs: 100, multiplier: 2, maxMs: 10_000 }, () => 0.999)).toBe(799);
  });

  it('never waits less than Retry-After', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 50 }),
        options,
        unit,
        fc.integer({ min: 0, max: 600_000 }),
        (n, o, r, ra) => {
          expect(retryDelay(n, ra, o, () => r)).toBeGreaterThanOrEqual(ra);
          expect(retryDelay(n, undefined, o, () => r)).toBe(backoffDelay(n, o, () => r));
        },
      ),
    );
  });
});

describe('Retry-After', () => {
  it('reads delay-seconds', () => {
    expect(parseRetryAfter('0')).toBe(0);
    expect(parseRetryAfter(' 2 ')).toBe(2_000);
    expect(parseRetryAfter('120')).toBe(120_000);
  });

  it('reads an HTTP-date relative to now, and a past date as now', () => {
    const now = Date.UTC(2026, 0, 1, 12, 0, 0);
    expect(parseRetryAfter('Thu, 01 Jan 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 11:00:00 GMT', now)).toBe(0);
  });

  it('ignores what is neither', () => {
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('')).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter('-5')).toBeUndefined();
  });

  it('round-trips any whole number of seconds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e9 }), (s) => {
        expect(parseRetryAfter(String(s))).toBe(s * 1000);
      }),
    );
  });
});

describe('RetryBudget', () => {
  it('stops retries after a run of failures and recovers with successes', () => {
    const b = new RetryBudget({ maxTokens: 10, tokenRatio: 0.5 });
    expect(b.canRetry()).toBe(true);
    for (let i = 0; i < 5; i++) b.onFailure();
    expect(b.canRetry()).toBe(false);
    b.onSuccess();
    b.onSuccess();
    expect(b.canRetry()).toBe(true);
  });

  it('keeps its tokens within [0, max] whatever happens', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: 200 }), (events) => {
        const b = new RetryBudget({ maxTokens: 8, tokenRatio: 0.3 });
        for (const ok of events) {
          if (ok) b.onSuccess();
          else b.onFailure();
          expect(b.available).toBeGreaterThanOrEqual(0);
          expect(b.available).toBeLessThanOrEqual(8);
        }
      }),
    );
  });
});
