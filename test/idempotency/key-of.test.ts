import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  IDEMPOTENCY_EXTENSION_URI,
  IDEMPOTENCY_METADATA_KEY,
  KeyFormatError,
  describeKeyError,
  keyOf,
  readKey,
  validateKey,
} from '../../src/idempotency/index.js';
import type { Message } from '../../src/protocol/model.js';
import { message, validKey } from './arbitraries.js';

const withEntry = (m: Message, value: unknown, uri: boolean): Message => ({
  ...m,
  metadata: { ...m.metadata, [IDEMPOTENCY_METADATA_KEY]: value },
  ...(uri ? { extensions: [...(m.extensions ?? []), IDEMPOTENCY_EXTENSION_URI] } : {}),
});

/** Every JSON value that is not a string, and then some. */
const nonString = fc.oneof(
  fc.constant(null),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.object(),
  fc.array(fc.jsonValue()),
  fc.constant({}),
  fc.constant([]),
);

describe('readKey / keyOf', () => {
  it('finds nothing on a message without the entry', () => {
    fc.assert(
      fc.property(message, (m) => {
        expect(readKey(m)).toEqual({});
        expect(keyOf(m)).toBeUndefined();
      }),
    );
    const bare: Message = { messageId: 'm', role: 'ROLE_USER', parts: [] };
    expect(keyOf(bare)).toBeUndefined();
    expect(keyOf({ ...bare, metadata: { [IDEMPOTENCY_METADATA_KEY]: undefined } })).toBeUndefined();
  });

  it('treats the URI without a key as an ordinary unkeyed send', () => {
    const m: Message = {
      messageId: 'm',
      role: 'ROLE_USER',
      parts: [],
      extensions: [IDEMPOTENCY_EXTENSION_URI],
    };
    expect(keyOf(m)).toBeUndefined();
  });

  it('reads a valid key, with or without the URI declared', () => {
    fc.assert(
      fc.property(message, validKey, fc.boolean(), (m, key, uri) => {
        const keyed = withEntry(m, key, uri);
        expect(keyOf(keyed)).toBe(key);
        expect(readKey(keyed)).toEqual({ key });
      }),
    );
  });

  it('refuses an entry that is present but not a string: never absent', () => {
    fc.assert(
      fc.property(message, nonString, fc.boolean(), (m, value, uri) => {
        const keyed = withEntry(m, value, uri);
        expect(readKey(keyed)).toEqual({ error: 'NOT_A_STRING' });
        expect(() => keyOf(keyed)).toThrow(KeyFormatError);
        try {
          keyOf(keyed);
        } catch (error) {
          expect((error as KeyFormatError).keyError).toBe('NOT_A_STRING');
        }
      }),
    );
  });

  it('refuses an invalid key string with its validation error', () => {
    fc.assert(
      fc.property(
        message,
        fc.string({ maxLength: 300 }).filter((s) => validateKey(s) !== undefined),
        (m, bad) => {
          const keyed = withEntry(m, bad, true);
          const kind = validateKey(bad)!;
          expect(readKey(keyed)).toEqual({ error: kind });
          expect(() => keyOf(keyed)).toThrow(KeyFormatError);
          expect(() => keyOf(keyed)).toThrow(describeKeyError(kind));
        },
      ),
    );
  });

  it('allocates nothing for the unkeyed and refused cases (shared results)', () => {
    const a: Message = { messageId: 'a', role: 'ROLE_USER', parts: [] };
    const b: Message = { messageId: 'b', role: 'ROLE_AGENT', parts: [], metadata: { other: 1 } };
    expect(readKey(a)).toBe(readKey(b));
    expect(readKey(withEntry(a, null, false))).toBe(readKey(withEntry(b, 7, true)));
    expect(Object.isFrozen(readKey(a))).toBe(true);
  });

  it('treats a non-object metadata value from an unchecked wire value as having no entry', () => {
    for (const metadata of ['x', 3, [IDEMPOTENCY_METADATA_KEY], null]) {
      const m = { messageId: 'm', role: 'ROLE_USER', parts: [], metadata } as unknown as Message;
      expect(keyOf(m)).toBeUndefined();
    }
  });
});

describe('null-prototype metadata (what a hardened JSON parser may produce)', () => {
  it('is read and rewritten like any other object', () => {
    const metadata = Object.assign(Object.create(null) as Record<string, unknown>, {
      [IDEMPOTENCY_METADATA_KEY]: 'a'.repeat(16),
      other: true,
    });
    const m: Message = { messageId: 'm', role: 'ROLE_USER', parts: [], metadata };
    expect(keyOf(m)).toBe('a'.repeat(16));
    const empty: Message = { ...m, metadata: Object.create(null) as Record<string, unknown> };
    expect(keyOf(empty)).toBeUndefined();
  });
});
