/**
 * `findNonJson` (docs/semantics.md §2 "Input refused at the door", ADR 0031): whatever it passes, JSON.stringify
 * and the digest's canonical JSON can write, and JSON reads back the same; whatever JSON.parse produces within
 * the depth limit, it passes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/idempotency/digest.js';
import { jsonDepth } from '../../src/protocol/json-depth.js';
import { findNonJson } from '../../src/protocol/json-value.js';

describe('findNonJson', () => {
  it('passes every value JSON.parse produces within the limit, and finds the depth exactly as jsonDepth does', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.nat(9), (v, limit) => {
        const text = JSON.stringify(v);
        const parsed = JSON.parse(text) as unknown;
        const tooDeep = jsonDepth(text) > limit;
        const found = findNonJson(parsed, limit);
        expect(found === undefined).toBe(!tooDeep);
        if (found) expect(found.problem).toMatch(/nested deeper than/);
      }),
      { numRuns: 1000 },
    );
  });

  it('whatever it passes, JSON and canonical JSON write without throwing, and JSON reads back the same', () => {
    const anything = fc.anything({
      maxDepth: 5,
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withTypedArray: true,
      withSparseArray: true,
    });
    let passed = 0;
    fc.assert(
      fc.property(anything, (v) => {
        // A top-level `undefined` is no document at all (the message is always an object).
        if (v === undefined || findNonJson(v, 64) !== undefined) return;
        passed++;
        const text = JSON.stringify(v);
        expect(() => canonicalJson(v)).not.toThrow();
        if (text !== undefined) expect(canonicalJson(JSON.parse(text))).toBe(canonicalJson(v));
      }),
      { numRuns: 2000 },
    );
    expect(passed).toBeGreaterThan(100);
  });

  it('names the first offending place and why', () => {
    const loop: Record<string, unknown> = {};
    loop.again = loop;
    const cases: [unknown, (string | number)[], RegExp][] = [
      [{ a: [1, 2n] }, ['a', 1], /BigInt/],
      [{ a: { b: Number.POSITIVE_INFINITY } }, ['a', 'b'], /Infinity has no JSON form/],
      [[Number.NaN], [0], /NaN/],
      [{ when: new Date(0) }, ['when'], /a Date is not a plain JSON object/],
      [{ m: new Map() }, ['m'], /a Map is not/],
      [{ f: () => 1 }, ['f'], /function/],
      [{ s: Symbol('x') }, ['s'], /symbol/],
      [{ boxed: new String('x') }, ['boxed'], /a String is not/],
    ];
    for (const [value, path, problem] of cases) {
      const found = findNonJson(value, 64);
      expect(found?.path).toEqual(path);
      expect(found?.problem).toMatch(problem);
    }
    const cyclic = findNonJson({ loop }, 64);
    expect(cyclic?.path.slice(0, 3)).toEqual(['loop', 'again', 'again']);
    expect(cyclic?.problem).toMatch(/nested deeper than 64 levels \(or cyclic\)/);
  });

  it('allows undefined members and null-prototype objects, which JSON writes plainly', () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare.x = 1;
    expect(findNonJson({ a: undefined, b: bare, c: [null, 'x', true, 0] }, 64)).toBeUndefined();
  });

  it('a getter that throws is reported, not thrown', () => {
    const v = {
      get boom(): never {
        throw new Error('kaboom');
      },
    };
    expect(findNonJson({ v }, 64)).toEqual({ path: [], problem: 'cannot be read (kaboom)' });
  });
});
