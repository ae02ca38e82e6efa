import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  IDEMPOTENCY_EXTENSION_URI,
  IDEMPOTENCY_METADATA_KEY,
  canonicalJson,
  messageDigest,
  setKey,
} from '../../src/idempotency/index.js';
import type { Message } from '../../src/protocol/model.js';
import { message, reorder, validKey } from './arbitraries.js';

describe('canonicalJson', () => {
  it('matches the RFC 8785 §3.2.2 example', () => {
    const input: unknown = JSON.parse(
      '{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001],' +
        '"string":"\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/","literals":[null,true,false]}',
    );
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('sorts members by UTF-16 code units (RFC 8785 §3.2.3)', () => {
    const input = {
      '\u20ac': 'Euro',
      '\r': 'CR',
      '\ufb33': 'Hebrew',
      '1': 'One',
      '\ud83d\ude00': 'Smiley',
      '\u0080': 'Control',
      '\u00f6': 'Latin',
    };
    const order = Object.keys(JSON.parse(canonicalJson(input)) as object);
    // JSON.parse lists integer-like keys first, so compare the non-integer ones.
    expect(order.filter((k) => k !== '1')).toEqual([
      '\r',
      '\u0080',
      '\u00f6',
      '\u20ac',
      '\ud83d\ude00',
      '\ufb33',
    ]);
    expect(canonicalJson(input).startsWith('{"\\r":"CR","1":"One","\u0080"')).toBe(true);
  });

  it('has no whitespace and leaves undefined members out', () => {
    expect(canonicalJson({ b: [1, undefined, 'x'], a: undefined, c: { d: null } })).toBe(
      '{"b":[1,null,"x"],"c":{"d":null}}',
    );
  });

  it('is invariant under member order', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer(), (value, seed) => {
        expect(canonicalJson(reorder(value, seed))).toBe(canonicalJson(value));
      }),
    );
  });

  it('round-trips: parsing it gives back the same value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it('serialises like JSON.stringify before and after a trip over the wire', () => {
    fc.assert(
      fc.property(
        fc.anything({
          withBoxedValues: true,
          withDate: true,
          withMap: true,
          withSet: true,
          withTypedArray: true,
          withSparseArray: true,
          withNullPrototype: true,
        }),
        (value) => {
          const wire = JSON.stringify(value);
          fc.pre(wire !== undefined);
          expect(canonicalJson(value)).toBe(canonicalJson(JSON.parse(wire)));
        },
      ),
    );
  });

  it('refuses what JSON cannot express instead of guessing', () => {
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
    expect(() => canonicalJson(10n)).toThrow(TypeError);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(TypeError);
  });
});

const base: Message = {
  messageId: 'msg-1',
  role: 'ROLE_USER',
  parts: [{ text: 'summarise the incident' }],
};

describe('messageDigest', () => {
  it('is lowercase hex SHA-256', () => {
    expect(messageDigest(base)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is stable under member order, at every level', () => {
    fc.assert(
      fc.property(message, fc.integer(), (m, seed) => {
        expect(messageDigest(reorder(m, seed))).toBe(messageDigest(m));
      }),
    );
  });

  it('is stable under adding or removing the key and the URI (per-attempt fields)', () => {
    fc.assert(
      fc.property(message, validKey, validKey, (m, k1, k2) => {
        const d = messageDigest(m);
        const keyed = setKey(m, k1);
        expect(messageDigest(keyed)).toBe(d);
        expect(messageDigest(setKey(m, k2))).toBe(d);
        const keyOnly = { ...keyed, extensions: m.extensions ?? [] };
        expect(messageDigest(keyOnly)).toBe(d);
        const uriOnly = { ...m, extensions: [IDEMPOTENCY_EXTENSION_URI, ...(m.extensions ?? [])] };
        expect(messageDigest(uriOnly)).toBe(d);
        // Even a malformed entry is left out: it is validated before the digest is ever taken.
        expect(messageDigest({ ...m, metadata: { ...m.metadata, [IDEMPOTENCY_METADATA_KEY]: null } })).toBe(
          d,
        );
      }),
    );
  });

  it('treats default-valued fields alike, as the bindings may produce either', () => {
    fc.assert(
      fc.property(message, (m) => {
        const d = messageDigest(m);
        const withDefaults = {
          ...m,
          metadata: m.metadata ?? {},
          extensions: m.extensions ?? [],
          referenceTaskIds: m.referenceTaskIds ?? [],
          contextId: m.contextId ?? '',
          taskId: m.taskId ?? (null as unknown as string),
          parts: m.parts.map((p) => ({
            ...p,
            metadata: p.metadata ?? {},
            filename: p.filename || undefined,
          })),
        };
        expect(messageDigest(withDefaults)).toBe(d);
        expect(messageDigest(JSON.parse(JSON.stringify(m)) as Message)).toBe(d);
      }),
    );
    expect(messageDigest({ ...base, role: 'ROLE_UNSPECIFIED' })).toBe(
      messageDigest({ messageId: 'msg-1', parts: base.parts } as Message),
    );
  });

  it('keeps an empty text part: the part kind is content', () => {
    expect(messageDigest({ ...base, parts: [{ text: '' }] })).not.toBe(
      messageDigest({ ...base, parts: [{}] as never }),
    );
  });

  /** Real content changes, each of which must change the digest. */
  const changes: Record<string, (m: Message) => Message> = {
    // Every generated message gets a text part at index 0 (below), so this edits real text.
    text: (m) => ({
      ...m,
      parts: m.parts.map((p, i) => (i === 0 && 'text' in p ? { ...p, text: p.text + 'x' } : p)),
    }),
    'a part added': (m) => ({ ...m, parts: [...m.parts, { text: 'more' }] }),
    messageId: (m) => ({ ...m, messageId: m.messageId + 'x' }),
    contextId: (m) => ({ ...m, contextId: (m.contextId ?? '') + 'c' }),
    taskId: (m) => ({ ...m, taskId: (m.taskId ?? '') + 't' }),
    role: (m) => ({ ...m, role: m.role === 'ROLE_USER' ? 'ROLE_AGENT' : 'ROLE_USER' }),
    'other metadata': (m) => ({ ...m, metadata: { ...m.metadata, 'extra-entry-for-test': 1 } }),
    referenceTaskIds: (m) => ({ ...m, referenceTaskIds: [...(m.referenceTaskIds ?? []), 'ref-x'] }),
    'other extensions': (m) => ({ ...m, extensions: [...(m.extensions ?? []), 'urn:other-extension'] }),
  };

  for (const [name, change] of Object.entries(changes)) {
    it(`changes under a real content change: ${name}`, () => {
      fc.assert(
        fc.property(message, validKey, (generated, key) => {
          const m: Message = { ...generated, parts: [{ text: 'hello' }, ...generated.parts] };
          fc.pre(!(m.metadata && 'extra-entry-for-test' in m.metadata));
          const keyed = setKey(m, key);
          expect(messageDigest(setKey(change(m), key))).not.toBe(messageDigest(keyed));
          expect(messageDigest(change(m))).not.toBe(messageDigest(m));
        }),
      );
    });
  }

  it('changes when two distinct parts swap places', () => {
    fc.assert(
      fc.property(message, fc.string(), fc.string(), (m, a, b) => {
        fc.pre(a !== b);
        const one = { ...m, parts: [{ text: a }, { text: b }, ...m.parts] };
        const two = { ...m, parts: [{ text: b }, { text: a }, ...m.parts] };
        expect(messageDigest(one)).not.toBe(messageDigest(two));
      }),
    );
  });

  it('tells metadata values and part contents apart exactly', () => {
    expect(messageDigest({ ...base, metadata: { a: 1 } })).not.toBe(
      messageDigest({ ...base, metadata: { a: '1' } }),
    );
    expect(messageDigest({ ...base, metadata: { a: null } })).not.toBe(messageDigest(base));
    expect(messageDigest({ ...base, parts: [{ data: {} }] })).not.toBe(
      messageDigest({ ...base, parts: [{ data: [] }] }),
    );
  });
});
