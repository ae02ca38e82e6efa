/**
 * The checks every store runs before it records a step or sets a lease (ADR 0036): each refusal is a
 * `StoreError` `BAD_ARGUMENT` whose message names the method, the argument and, for a result, where in it the
 * problem is; and a valid name is any well-formed string, unchanged.
 */
import { describe, expect, it } from 'vitest';
import { StoreError } from '../../src/store/sql/store-error.js';
import { stepResultText } from '../../src/store/sql/step-input.js';
import { checkLeaseGrant, checkLimit, textKeyProblem } from '../../src/store/sql/worker-lease.js';

function thrown(fn: () => unknown): StoreError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(StoreError);
    expect(err).toMatchObject({ code: 'BAD_ARGUMENT' });
    return err as StoreError;
  }
  throw new Error('expected a StoreError');
}

describe('stepResultText', () => {
  it('is the JSON text of a plain JSON result', () => {
    expect(stepResultText({ name: 's', fence: 1, result: { a: [1, 'x', null] } })).toBe('{"a":[1,"x",null]}');
    expect(stepResultText({ name: 's', fence: 1, result: null })).toBe('null');
  });

  it('names where a result stops being JSON', () => {
    expect(thrown(() => stepResultText({ name: 's', fence: 1, result: undefined })).message).toBe(
      'recordStep: the result: undefined has no JSON form',
    );
    expect(
      thrown(() => stepResultText({ name: 's', fence: 1, result: { order: { at: [0, new Date(0)] } } }))
        .message,
    ).toBe('recordStep: the result at order.at.1: a Date is not a plain JSON object');
    const deep: unknown[] = [];
    let cur = deep;
    for (let i = 0; i < 70; i++) cur.push((cur = []));
    expect(thrown(() => stepResultText({ name: 's', fence: 1, result: deep })).message).toMatch(
      /nested deeper than 64 levels/,
    );
  });

  it('names a bad name or fence', () => {
    expect(thrown(() => stepResultText({ name: '', fence: 1, result: 1 })).message).toBe(
      'recordStep: the step name must be a non-empty string',
    );
    expect(thrown(() => stepResultText({ name: 's', fence: 0, result: 1 })).message).toBe(
      'recordStep: fence must be a positive integer, got 0',
    );
  });
});

describe('textKeyProblem', () => {
  it('accepts any well-formed string up to the length, astral characters included', () => {
    for (const ok of ['a', '🎉', 'e\u0301', 'x'.repeat(10)]) expect(textKeyProblem(ok, 10)).toBeUndefined();
  });

  it('refuses what a text key cannot hold exactly', () => {
    expect(textKeyProblem('x'.repeat(11), 10)).toMatch(/at most 10/);
    expect(textKeyProblem('a\u0000', 10)).toMatch(/NUL/);
    expect(textKeyProblem('\ud83c', 10)).toMatch(/lone surrogate/);
    expect(textKeyProblem('\udf89x', 10)).toMatch(/lone surrogate/);
    expect(textKeyProblem(42, 10)).toMatch(/non-empty string/);
  });
});

describe('lease arguments', () => {
  it('refuses a grant of no time and a limit below zero, naming the method', () => {
    expect(thrown(() => checkLeaseGrant('commit', { owner: 'w', ttlMs: 0 })).message).toBe(
      'commit: the lease ttlMs must be a positive whole number of ms, got 0',
    );
    expect(thrown(() => checkLimit('findLapsedLeases', -1)).message).toBe(
      'findLapsedLeases: limit must be a whole number, got -1',
    );
    expect(() => checkLeaseGrant('commit', null)).not.toThrow();
    expect(() => checkLeaseGrant('commit', undefined)).not.toThrow();
  });
});
