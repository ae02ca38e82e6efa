import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  KeyFormatError,
  MAX_KEY_LEN,
  MIN_KEY_LEN,
  describeKeyError,
  validateKey,
} from '../../src/idempotency/index.js';
import type { KeyError } from '../../src/idempotency/index.js';
import { invalidChar, keyString, validKey } from './arbitraries.js';

describe('validateKey', () => {
  it('accepts every key of 16 to 255 allowed characters', () => {
    fc.assert(
      fc.property(validKey, (key) => {
        expect(validateKey(key)).toBeUndefined();
      }),
    );
  });

  it('accepts the bounds exactly and the seed examples', () => {
    expect(validateKey('a'.repeat(MIN_KEY_LEN))).toBeUndefined();
    expect(validateKey('a'.repeat(MAX_KEY_LEN))).toBeUndefined();
    expect(validateKey('tenant-a:8f14e45fceea167a')).toBeUndefined();
    expect(validateKey('8f14e45fceea167a5a36dedd4bea2543')).toBeUndefined();
    expect(validateKey('retry')).toBe('TOO_SHORT');
    expect(validateKey('a'.repeat(MIN_KEY_LEN - 1))).toBe('TOO_SHORT');
    expect(validateKey('a'.repeat(MAX_KEY_LEN + 1))).toBe('TOO_LONG');
    expect(validateKey('aaaaaaaaaaaaaaaa\n')).toBe('INVALID_CHARACTER');
  });

  it('refuses any key with a character outside the set, wherever it is', () => {
    fc.assert(
      fc.property(
        keyString(16, 200),
        fc.array(fc.tuple(invalidChar, fc.nat()), { minLength: 1, maxLength: 3 }),
        (base, inserts) => {
          let key = base;
          for (const [ch, at] of inserts) {
            const i = at % (key.length + 1);
            key = key.slice(0, i) + ch + key.slice(i);
          }
          expect(validateKey(key)).toBe('INVALID_CHARACTER');
        },
      ),
    );
  });

  it('refuses lengths 0 to 15 as TOO_SHORT, whatever the characters (length is checked first)', () => {
    for (let n = 0; n < MIN_KEY_LEN; n++) {
      expect(validateKey('k'.repeat(n))).toBe('TOO_SHORT');
      expect(validateKey(' '.repeat(n))).toBe('TOO_SHORT');
    }
    fc.assert(
      fc.property(keyString(0, 15), (key) => {
        expect(validateKey(key)).toBe('TOO_SHORT');
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary-ascii', maxLength: 15 }), (key) => {
        expect(validateKey(key)).toBe('TOO_SHORT');
      }),
    );
  });

  it('refuses 256 characters and more as TOO_LONG, whatever the characters', () => {
    fc.assert(
      fc.property(keyString(256, 600), (key) => {
        expect(validateKey(key)).toBe('TOO_LONG');
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 256, maxLength: 400 }), (key) => {
        expect(validateKey(key)).toBe('TOO_LONG');
      }),
    );
  });

  it('counts length in UTF-8 bytes, as a2a-rust does, so both SDKs name the same error', () => {
    expect(validateKey('é'.repeat(7))).toBe('TOO_SHORT'); // 14 bytes
    expect(validateKey('é'.repeat(8))).toBe('INVALID_CHARACTER'); // 16 bytes
    expect(validateKey('😀'.repeat(4))).toBe('INVALID_CHARACTER'); // 16 bytes, 8 UTF-16 units
    expect(validateKey('€'.repeat(86))).toBe('TOO_LONG'); // 258 bytes, 86 units
  });

  it('reports NOT_A_STRING for a non-string from untyped callers', () => {
    const values: unknown[] = [null, undefined, 42, true, {}, []];
    for (const value of values) {
      expect(validateKey(value as string)).toBe('NOT_A_STRING');
    }
  });
});

describe('describeKeyError and KeyFormatError', () => {
  const kinds: KeyError[] = ['TOO_SHORT', 'TOO_LONG', 'INVALID_CHARACTER', 'NOT_A_STRING'];

  it('gives each kind its own human sentence', () => {
    const sentences = kinds.map(describeKeyError);
    expect(new Set(sentences).size).toBe(kinds.length);
    for (const s of sentences) expect(s).toMatch(/^The idempotency key .+\.$/);
    expect(describeKeyError('TOO_SHORT')).toContain(String(MIN_KEY_LEN));
    expect(describeKeyError('TOO_LONG')).toContain(String(MAX_KEY_LEN));
  });

  it('carries the kind and the sentence', () => {
    for (const kind of kinds) {
      const error = new KeyFormatError(kind);
      expect(error).toBeInstanceOf(Error);
      expect(error).toBeInstanceOf(KeyFormatError);
      expect(error.name).toBe('KeyFormatError');
      expect(error.keyError).toBe(kind);
      expect(error.message).toBe(describeKeyError(kind));
    }
    expect(new Error('x')).not.toBeInstanceOf(KeyFormatError);
  });
});
