/**
 * The wire's nesting scan (docs/semantics.md §2 "Input refused at the door", ADR 0031): one linear pass over the
 * text that tracks depth outside strings, checked against JSON.parse with fast-check, strings full of brackets,
 * quotes and escapes included, and cheap on hostile input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exceedsJsonDepth, jsonDepth, MAX_JSON_DEPTH } from '../../src/protocol/json-depth.js';

/** The nesting depth of a parsed value: the reference the scan must agree with. */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 0;
  for (const v of Array.isArray(value) ? value : Object.values(value))
    deepest = Math.max(deepest, depthOf(v));
  return deepest + 1;
}

/** Strings made mostly of what could fool a scanner: brackets, quotes, backslashes, escapes, odd code units. */
const trickyString = fc.string({
  unit: fc.constantFrom(
    '[',
    ']',
    '{',
    '}',
    '"',
    '\\',
    '\\"',
    '\\\\',
    'a',
    ' ',
    '\n',
    '\u0000',
    '\u2028',
    'é',
    '\ud83d',
    '\ude00',
    '/',
  ),
  maxLength: 12,
});

const { value: arbValue } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    trickyString,
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(trickyString, tie('value'), { maxKeys: 4 }),
  ),
}));

/** A value and one of its JSON texts (compact or indented). */
const arbText = fc.tuple(arbValue, fc.constantFrom(undefined, 1, 2, '\t')).map(([v, indent]) => {
  const text = JSON.stringify(v, null, indent);
  return { text, depth: depthOf(JSON.parse(text)) };
});

describe('jsonDepth', () => {
  it('equals the nesting depth of JSON.parse for any JSON text, tricky strings and whitespace included', () => {
    fc.assert(
      fc.property(arbText, ({ text, depth }) => {
        expect(jsonDepth(text)).toBe(depth);
      }),
      { numRuns: 2000 },
    );
  });

  it('with a limit: the exact depth up to the limit, limit + 1 past it', () => {
    fc.assert(
      fc.property(arbText, fc.nat(6), ({ text, depth }, limit) => {
        expect(jsonDepth(text, limit)).toBe(Math.min(depth, limit + 1));
      }),
      { numRuns: 1000 },
    );
  });

  it('exceedsJsonDepth (the openers pre-count, then the scan) is exactly "deeper than the limit"', () => {
    fc.assert(
      fc.property(arbText, fc.nat(8), ({ text, depth }, limit) => {
        expect(exceedsJsonDepth(text, limit)).toBe(depth > limit);
      }),
      { numRuns: 2000 },
    );
    // Many openers, shallow: the pre-count passes it on to the scan, which clears it.
    const wide = JSON.stringify(Array.from({ length: 500 }, () => ({ a: [1] })));
    expect(exceedsJsonDepth(wide)).toBe(false);
    expect(exceedsJsonDepth('['.repeat(65) + ']'.repeat(65))).toBe(true);
    expect(exceedsJsonDepth('['.repeat(64) + ']'.repeat(64))).toBe(false);
    // Openers inside strings count toward the pre-count but never toward the depth.
    expect(exceedsJsonDepth(JSON.stringify({ s: '['.repeat(1000) }))).toBe(false);
  });

  it('also agrees with the values fast-check itself generates as JSON (any unicode)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 10, stringUnit: 'binary' }), (v) => {
        const text = JSON.stringify(v);
        expect(jsonDepth(text)).toBe(depthOf(JSON.parse(text)));
      }),
      { numRuns: 1000 },
    );
  });

  it('brackets inside strings never count, whatever escapes precede the closing quote', () => {
    expect(jsonDepth('"[[[[{{{{"')).toBe(0);
    expect(jsonDepth('["\\"[[[", 1]')).toBe(1);
    expect(jsonDepth('["\\\\", [1]]')).toBe(2); // the string is one backslash; the quote after it closes it
    expect(jsonDepth('["\\\\\\"[", [1]]')).toBe(2);
    expect(jsonDepth('{"[": {"]": "{"}}')).toBe(2);
  });

  it('the limit is 64 levels', () => {
    expect(MAX_JSON_DEPTH).toBe(64);
    expect(jsonDepth('['.repeat(64) + ']'.repeat(64), MAX_JSON_DEPTH)).toBe(64);
    expect(jsonDepth('['.repeat(65) + ']'.repeat(65), MAX_JSON_DEPTH)).toBe(65);
  });

  it('stops at the limit: a million levels cost no more than the first 65', () => {
    const hostile = '['.repeat(1_000_000);
    const start = performance.now();
    for (let i = 0; i < 1000; i++) expect(jsonDepth(hostile, MAX_JSON_DEPTH)).toBe(MAX_JSON_DEPTH + 1);
    expect(performance.now() - start).toBeLessThan(500);
  });

  it('is linear on long strings and long runs of backslashes (no quadratic rescans)', () => {
    const longText = JSON.stringify({ text: 'x'.repeat(4_000_000) });
    const backslashes = JSON.stringify(['\\'.repeat(1_000_000) + '"'.repeat(1000)]);
    const start = performance.now();
    expect(jsonDepth(longText, MAX_JSON_DEPTH)).toBe(1);
    expect(jsonDepth(backslashes, MAX_JSON_DEPTH)).toBe(1);
    expect(performance.now() - start).toBeLessThan(1000);
  });

  it('terminates on malformed text (an unterminated string, stray closers)', () => {
    expect(jsonDepth('["abc')).toBe(1);
    expect(jsonDepth(']]]]')).toBe(0);
    expect(jsonDepth('"\\')).toBe(0);
  });
});
