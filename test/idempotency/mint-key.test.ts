import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  MAX_MINT_CLOCK_SKEW_MS,
  MIN_MINT_TIME_MS,
  mintKey,
  mintTimeOf,
  validateKey,
} from '../../src/idempotency/index.js';
import { IK1_KEY_SHAPE } from '../../src/idempotency/mint-key.js';
import { validKey } from './arbitraries.js';

const NOW = Date.UTC(2026, 5, 1);
/** Any mint time a reader at NOW accepts. */
const plausibleTime = fc.integer({ min: MIN_MINT_TIME_MS, max: NOW + MAX_MINT_CLOCK_SKEW_MS });

describe('mintKey', () => {
  it('always gives a valid key in the documented format', () => {
    expect(validateKey(mintKey())).toBeUndefined();
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (t) => {
        const key = mintKey(t);
        expect(validateKey(key)).toBeUndefined();
        expect(key).toMatch(/^ik1\.[0-9a-z]+\.[A-Za-z0-9_-]{22}$/);
      }),
    );
  });

  it('is unique over many calls, even at the same instant', () => {
    const keys = new Set<string>();
    for (let i = 0; i < 20_000; i++) keys.add(mintKey(NOW));
    expect(keys.size).toBe(20_000);
  });

  it('uses all of the random alphabet (the random part is not constant or truncated)', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 500; i++) for (const ch of mintKey(NOW).split('.')[2]!.slice(0, 21)) seen.add(ch);
    expect(seen.size).toBe(64);
  });

  it('refuses a mint time that is not a non-negative integer of milliseconds', () => {
    for (const t of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 2]) {
      expect(() => mintKey(t)).toThrow(RangeError);
    }
  });
});

describe('mintTimeOf', () => {
  it('reads back the mint time: mintTimeOf(mintKey(t)) === t', () => {
    fc.assert(
      fc.property(plausibleTime, (t) => {
        expect(mintTimeOf(mintKey(t), NOW)).toBe(t);
      }),
    );
    const now = Date.now();
    expect(mintTimeOf(mintKey(now))).toBe(now);
  });

  it('is undefined for implausible times: before 2020 or further ahead than the skew allowance', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: 0, max: MIN_MINT_TIME_MS - 1 }),
          fc.integer({ min: NOW + MAX_MINT_CLOCK_SKEW_MS + 1, max: Number.MAX_SAFE_INTEGER }),
        ),
        (t) => {
          expect(mintTimeOf(mintKey(t), NOW)).toBeUndefined();
        },
      ),
    );
  });

  it('is undefined for keys of any other format', () => {
    fc.assert(
      fc.property(
        validKey.filter((k) => !k.startsWith('ik1.')),
        (key) => {
          expect(mintTimeOf(key, NOW)).toBeUndefined();
        },
      ),
    );
    const good = mintKey(NOW);
    const [, time, random] = good.split('.') as [string, string, string];
    expect(mintTimeOf(good, NOW)).toBe(NOW);
    for (const forged of [
      `ik2.${time}.${random}`,
      `ik1.0${time}.${random}`, // not canonical base36
      `ik1.${time.toUpperCase()}.${random}`,
      `ik1.${time}.${random}A`,
      `ik1.${time}.${random.slice(1)}`,
      `ik1.${time}.${random.slice(0, 21)}B`, // last character carries bits 16 bytes cannot have
      `ik1.${time}`,
      `ik1..${random}`,
      'x'.repeat(40),
    ]) {
      expect(mintTimeOf(forged, NOW)).toBeUndefined();
    }
  });
});

describe('mintTimeOf reads keys exactly as the IK1_KEY_SHAPE pattern does', () => {
  /** The reference: the pattern, then the plausibility window. */
  function reference(key: string, now: number): number | undefined {
    const m = IK1_KEY_SHAPE.exec(key);
    if (!m) return undefined;
    const t = parseInt(m[1]!, 36);
    return Number.isSafeInteger(t) && t >= MIN_MINT_TIME_MS && t <= now + MAX_MINT_CLOCK_SKEW_MS
      ? t
      : undefined;
  }
  /** Minted keys, then one character replaced, inserted or removed anywhere (most become malformed). */
  const mutated = fc
    .tuple(
      plausibleTime,
      fc.nat(40),
      fc.constantFrom('', '0', 'A', 'Q', 'g', 'w', 'B', '.', '-', '_', '!', 'Z', 'z', '9', 'é'),
      fc.constantFrom('replace', 'insert', 'remove', 'keep'),
    )
    .map(([t, at, c, how]) => {
      const k = mintKey(t);
      const i = at % (k.length + 1);
      if (how === 'replace') return k.slice(0, i) + c + k.slice(i + 1);
      if (how === 'insert') return k.slice(0, i) + c + k.slice(i);
      if (how === 'remove') return k.slice(0, i) + k.slice(i + 1);
      return k;
    });

  it('agrees with the pattern on minted and mutated keys and on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.oneof(mutated, fc.string(), validKey), (key) => {
        expect(mintTimeOf(key, NOW)).toBe(reference(key, NOW));
      }),
      { numRuns: 5000 },
    );
  });

  it('agrees at the edges: leading zero, 11 time digits, every last character', () => {
    const tail = 'A'.repeat(21);
    for (const time of ['0', '01', 'k', 'zzzzzzzzzzz', '1zzzzzzzzzz', 'mbx3k2q0', 'zzzzzzzzzzzz'])
      for (const last of ['A', 'Q', 'g', 'w', 'B', '_'])
        for (const key of [`ik1.${time}.${tail}${last}`, `ik1.${time}.${tail}A${last}`]) {
          expect(mintTimeOf(key, NOW)).toBe(reference(key, NOW));
        }
  });
});
