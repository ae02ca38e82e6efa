/**
 * Local generators for the idempotency tests (kept here on purpose: the shared protocol arbitraries are
 * another engineer's work in progress).
 */
import fc from 'fast-check';
import type { JsonObject, Message, Part } from '../../src/protocol/model.js';
import { IDEMPOTENCY_EXTENSION_URI, IDEMPOTENCY_METADATA_KEY } from '../../src/idempotency/index.js';

/** Every character a key may contain. */
export const KEY_CHARSET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.:';

/** One allowed key character. */
export const keyChar = fc.constantFrom(...KEY_CHARSET.split(''));

/** Keys made of allowed characters, of any length in `[minLength, maxLength]`. */
export function keyString(minLength: number, maxLength: number): fc.Arbitrary<string> {
  return fc.string({ unit: keyChar, minLength, maxLength });
}

/** A valid key (16 to 255 allowed characters). */
export const validKey = keyString(16, 255);

/** One character outside the set: other ASCII (controls, space, `/`, ...), any code point, or a lone surrogate. */
export const invalidChar: fc.Arbitrary<string> = fc
  .oneof(
    fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
  )
  .filter((ch) => !(ch.length === 1 && KEY_CHARSET.includes(ch)));

/** A JSON object for metadata, never holding the idempotency entry. */
export const jsonObject: fc.Arbitrary<JsonObject> = fc
  .dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), {
    maxKeys: 4,
    noNullPrototype: true,
  })
  .map((o) => {
    delete o[IDEMPOTENCY_METADATA_KEY];
    return o;
  });

const partBase = {
  metadata: jsonObject,
  filename: fc.string({ maxLength: 8 }),
  mediaType: fc.string({ maxLength: 8 }),
};

/** A Part of any of the four kinds, with optional base fields. */
export const part: fc.Arbitrary<Part> = fc.oneof(
  fc.record(
    { text: fc.string({ maxLength: 12 }), ...partBase },
    { requiredKeys: ['text'], noNullPrototype: true },
  ),
  fc.record(
    { raw: fc.base64String({ maxLength: 12 }), ...partBase },
    { requiredKeys: ['raw'], noNullPrototype: true },
  ),
  fc.record({ url: fc.webUrl(), ...partBase }, { requiredKeys: ['url'], noNullPrototype: true }),
  fc.record(
    { data: fc.jsonValue({ maxDepth: 2 }), ...partBase },
    { requiredKeys: ['data'], noNullPrototype: true },
  ),
);

/** An extension URI other than ours. */
export const otherUri = fc.webUrl().filter((u) => u !== IDEMPOTENCY_EXTENSION_URI);

/**
 * A message without a key or the extension URI; optional fields come and go. Plain prototypes, as
 * `JSON.parse` gives (null-prototype objects are covered by example tests).
 */
export const message: fc.Arbitrary<Message> = fc.record(
  {
    messageId: fc.string({ minLength: 1, maxLength: 12 }),
    contextId: fc.uuid(),
    taskId: fc.uuid(),
    role: fc.constantFrom('ROLE_USER' as const, 'ROLE_AGENT' as const),
    parts: fc.array(part, { minLength: 1, maxLength: 4 }),
    metadata: jsonObject,
    extensions: fc.array(otherUri, { maxLength: 3 }),
    referenceTaskIds: fc.array(fc.uuid(), { maxLength: 3 }),
  },
  { requiredKeys: ['messageId', 'role', 'parts'], noNullPrototype: true },
);

/** A small deterministic PRNG (mulberry32), so a shuffle is reproducible from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A deep copy of `value` whose objects are rebuilt with their members in a shuffled order (arrays keep their
 * order: that is content). Same JSON meaning, different member order.
 */
export function reorder<T>(value: T, seed: number): T {
  const next = prng(seed);
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v !== 'object' || v === null) return v;
    const entries = Object.entries(v);
    for (let i = entries.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [entries[i], entries[j]] = [entries[j]!, entries[i]!];
    }
    return Object.fromEntries(entries.map(([k, x]) => [k, walk(x)]));
  };
  return walk(value) as T;
}
