import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  IDEMPOTENCY_EXTENSION_URI,
  IDEMPOTENCY_METADATA_KEY,
  KeyFormatError,
  declaresExtension,
  keyOf,
  messageDigest,
  setKey,
  validateKey,
  withoutKey,
} from '../../src/idempotency/index.js';
import type { Message } from '../../src/protocol/model.js';
import { message, validKey } from './arbitraries.js';

const count = (list: readonly string[] | undefined, uri: string): number =>
  (list ?? []).filter((u) => u === uri).length;

/** A message that may already carry the URI 0 to 3 times, at any positions. */
const messageWithUris = fc
  .tuple(message, fc.array(fc.nat(), { maxLength: 3 }))
  .map(([m, positions]): Message => {
    if (positions.length === 0) return m;
    const extensions = [...(m.extensions ?? [])];
    for (const p of positions) extensions.splice(p % (extensions.length + 1), 0, IDEMPOTENCY_EXTENSION_URI);
    return { ...m, extensions };
  });

describe('setKey', () => {
  it('round-trips: keyOf(setKey(m, k)) === k, the URI declared exactly once', () => {
    fc.assert(
      fc.property(messageWithUris, validKey, (m, key) => {
        const keyed = setKey(m, key);
        expect(keyOf(keyed)).toBe(key);
        expect(count(keyed.extensions, IDEMPOTENCY_EXTENSION_URI)).toBe(1);
        expect(declaresExtension(keyed)).toBe(true);
      }),
    );
  });

  it('keeps every other metadata entry and every other extension in order', () => {
    fc.assert(
      fc.property(messageWithUris, validKey, (m, key) => {
        const keyed = setKey(m, key);
        const { [IDEMPOTENCY_METADATA_KEY]: _key, ...rest } = keyed.metadata!;
        expect(rest).toEqual(m.metadata ?? {});
        const others = (list: readonly string[] | undefined) =>
          (list ?? []).filter((u) => u !== IDEMPOTENCY_EXTENSION_URI);
        expect(others(keyed.extensions)).toEqual(others(m.extensions));
        expect(keyed.parts).toBe(m.parts);
        expect(keyed.messageId).toBe(m.messageId);
      }),
    );
  });

  it('appends the URI after the existing ones, and keeps it in place when already declared', () => {
    const m: Message = { messageId: 'm', role: 'ROLE_USER', parts: [], extensions: ['urn:a', 'urn:b'] };
    expect(setKey(m, 'a'.repeat(16)).extensions).toEqual(['urn:a', 'urn:b', IDEMPOTENCY_EXTENSION_URI]);
    const declared = {
      ...m,
      extensions: ['urn:a', IDEMPOTENCY_EXTENSION_URI, 'urn:b', IDEMPOTENCY_EXTENSION_URI],
    };
    expect(setKey(declared, 'a'.repeat(16)).extensions).toEqual([
      'urn:a',
      IDEMPOTENCY_EXTENSION_URI,
      'urn:b',
    ]);
  });

  it('replaces a previous key', () => {
    fc.assert(
      fc.property(message, validKey, validKey, (m, k1, k2) => {
        const twice = setKey(setKey(m, k1), k2);
        expect(keyOf(twice)).toBe(k2);
        expect(count(twice.extensions, IDEMPOTENCY_EXTENSION_URI)).toBe(1);
      }),
    );
  });

  it('does not mutate its input', () => {
    fc.assert(
      fc.property(messageWithUris, validKey, (m, key) => {
        const before = structuredClone(m);
        const keyed = setKey(m, key);
        expect(m).toStrictEqual(before);
        expect(keyed).not.toBe(m);
        expect(keyed.metadata).not.toBe(m.metadata);
        expect(keyed.extensions).not.toBe(m.extensions);
      }),
    );
  });

  it('throws KeyFormatError for an invalid key and leaves the message untouched', () => {
    fc.assert(
      fc.property(
        messageWithUris,
        fc.string({ maxLength: 300 }).filter((s) => validateKey(s) !== undefined),
        (m, bad) => {
          const before = structuredClone(m);
          let thrown: unknown;
          try {
            setKey(m, bad);
          } catch (error) {
            thrown = error;
          }
          expect(thrown).toBeInstanceOf(KeyFormatError);
          expect((thrown as KeyFormatError).keyError).toBe(validateKey(bad));
          expect(m).toStrictEqual(before);
        },
      ),
    );
  });

  it('replaces a non-object metadata value from an unchecked wire value', () => {
    const m = { messageId: 'm', role: 'ROLE_USER', parts: [], metadata: 'x' } as unknown as Message;
    expect(setKey(m, 'a'.repeat(16)).metadata).toEqual({ [IDEMPOTENCY_METADATA_KEY]: 'a'.repeat(16) });
  });
});

describe('withoutKey', () => {
  it('undoes setKey exactly on a message without empty metadata or extensions', () => {
    fc.assert(
      fc.property(message, validKey, (m, key) => {
        const plain = { ...m };
        if (plain.metadata && Object.keys(plain.metadata).length === 0) delete plain.metadata;
        if (plain.extensions?.length === 0) delete plain.extensions;
        expect(withoutKey(setKey(plain, key))).toStrictEqual(plain);
      }),
    );
  });

  it('removes the entry and every URI, keeps the rest, and does not mutate', () => {
    fc.assert(
      fc.property(messageWithUris, validKey, (m, key) => {
        const keyed = setKey(m, key);
        const before = structuredClone(keyed);
        const bare = withoutKey(keyed);
        expect(keyed).toStrictEqual(before);
        expect(keyOf(bare)).toBeUndefined();
        expect(declaresExtension(bare)).toBe(false);
        expect(messageDigest(bare)).toBe(messageDigest(m));
      }),
    );
  });

  it('drops metadata and extensions only when the removal emptied them', () => {
    const m: Message = { messageId: 'm', role: 'ROLE_USER', parts: [], metadata: {}, extensions: [] };
    expect(withoutKey(m)).toStrictEqual(m);
    const keyed = setKey({ messageId: 'm', role: 'ROLE_USER', parts: [] }, 'a'.repeat(16));
    expect(withoutKey(keyed)).toStrictEqual({ messageId: 'm', role: 'ROLE_USER', parts: [] });
  });
});

describe('declaresExtension', () => {
  it('is true exactly when the URI is listed', () => {
    fc.assert(
      fc.property(messageWithUris, (m) => {
        expect(declaresExtension(m)).toBe(count(m.extensions, IDEMPOTENCY_EXTENSION_URI) > 0);
      }),
    );
  });
});
