/**
 * The v0.3 translation (docs/guides/v03-peers.md, ADR 0098): v1.0 -> v0.3 -> v1.0 is the identity on what both
 * versions can express, the idempotency key stays on the message, and invalid v0.3 input is an InvalidParams
 * error naming the field.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { IDEMPOTENCY_METADATA_KEY } from '../../../src/idempotency/index.js';
import type { Message, Part } from '../../../src/protocol/model.js';
import { TASK_STATES } from '../../../src/protocol/task-state.js';
import {
  messageToV03,
  messageToV1,
  partToV03,
  partToV1,
  pushConfigToV03,
  pushConfigToV1,
  sendParamsToV1,
  stateToV03,
  stateToV1,
} from '../../../src/protocol/v03/index.js';
import { A2AError } from '../../../src/protocol/errors.js';

// Empty metadata reads as none (a wrapped data value cannot tell them apart), so generated metadata has a key.
const meta = fc.option(fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue(), { minKeys: 1 }), {
  nil: undefined,
});
const named = {
  filename: fc.option(fc.string(), { nil: undefined }),
  mediaType: fc.option(fc.string(), { nil: undefined }),
};

function clean<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** Parts v0.3 can hold: text and data without a filename or media type; files with them. */
const part: fc.Arbitrary<Part> = fc.oneof(
  fc.record({ text: fc.string(), metadata: meta }).map(clean),
  fc.record({ raw: fc.base64String(), ...named, metadata: meta }).map(clean),
  fc.record({ url: fc.webUrl(), ...named, metadata: meta }).map(clean),
  fc.record({ data: fc.jsonValue(), metadata: meta }).map(clean),
);

const message: fc.Arbitrary<Message> = fc
  .record({
    messageId: fc.uuid(),
    role: fc.constantFrom('ROLE_USER' as const, 'ROLE_AGENT' as const),
    parts: fc.array(part, { maxLength: 4 }),
    contextId: fc.option(fc.uuid(), { nil: undefined }),
    taskId: fc.option(fc.uuid(), { nil: undefined }),
    metadata: meta,
    extensions: fc.option(fc.array(fc.webUrl(), { maxLength: 2 }), { nil: undefined }),
    referenceTaskIds: fc.option(fc.array(fc.uuid(), { maxLength: 2 }), { nil: undefined }),
  })
  .map(clean);

const json = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe('v1.0 -> v0.3 -> v1.0', () => {
  it('is the identity on parts and messages both versions can express', () => {
    fc.assert(
      fc.property(part, (p) => {
        expect(partToV1(json(partToV03(p)))).toEqual(json(p));
      }),
    );
    fc.assert(
      fc.property(message, (m) => {
        expect(messageToV1(json(messageToV03(m)))).toEqual(json(m));
      }),
    );
  });

  it('is the identity on every task state', () => {
    for (const s of TASK_STATES) expect(stateToV1(stateToV03(s))).toBe(s);
  });

  it('is the identity on push configs with one authentication scheme', () => {
    const config = fc
      .record({
        id: fc.option(fc.uuid(), { nil: undefined }),
        taskId: fc.uuid(),
        url: fc.webUrl(),
        token: fc.option(fc.string(), { nil: undefined }),
      })
      .map(clean);
    fc.assert(
      fc.property(config, fc.string({ minLength: 1 }), (c, scheme) => {
        const withAuth = { ...c, authentication: { scheme, credentials: 'c' } };
        const v03 = pushConfigToV03(withAuth);
        expect(pushConfigToV1(v03.pushNotificationConfig, v03.taskId)).toEqual(withAuth);
      }),
    );
  });

  it('keeps the idempotency key on the message of a v0.3 send', () => {
    const key = 'k-0123456789abcdef';
    const p = sendParamsToV1({
      message: {
        kind: 'message',
        messageId: 'm1',
        role: 'user',
        parts: [{ kind: 'text', text: 'hi' }],
        metadata: { [IDEMPOTENCY_METADATA_KEY]: key },
      },
      configuration: { blocking: false },
    });
    expect(p.message.metadata?.[IDEMPOTENCY_METADATA_KEY]).toBe(key);
    expect(p.configuration?.returnImmediately).toBe(true);
  });
});

describe('invalid v0.3 input', () => {
  it('is an InvalidParams error naming the field, for any unknown part kind', () => {
    fc.assert(
      fc.property(
        fc.string().filter((k) => !['text', 'file', 'data'].includes(k)),
        (kind) => {
          let err: unknown;
          try {
            sendParamsToV1({ message: { kind: 'message', messageId: 'm', role: 'user', parts: [{ kind }] } });
          } catch (e) {
            err = e;
          }
          expect(err).toBeInstanceOf(A2AError);
          expect((err as A2AError).code).toBe(-32602);
          expect((err as A2AError).metadata?.fields).toContain('message.parts');
        },
      ),
    );
  });

  it('keeps a metadata or data member named __proto__ (zod records would drop it in silence)', () => {
    const params = JSON.parse(
      '{"message":{"kind":"message","messageId":"m","role":"user","metadata":{"__proto__":{"a":1}},' +
        '"parts":[{"kind":"data","data":{"__proto__":"d","b":2}}]},"metadata":{"__proto__":true}}',
    ) as unknown;
    const v1 = sendParamsToV1(params);
    expect(Object.hasOwn(v1.message.metadata!, '__proto__')).toBe(true);
    expect(Object.hasOwn(v1.metadata!, '__proto__')).toBe(true);
    const part = v1.message.parts[0]!;
    expect('data' in part && Object.keys(part.data as object)).toEqual(['__proto__', 'b']);
  });

  it('refuses a kebab state or role it does not know', () => {
    expect(() =>
      sendParamsToV1({ message: { kind: 'message', messageId: 'm', role: 'robot', parts: [] } }),
    ).toThrow(/role/);
  });
});
