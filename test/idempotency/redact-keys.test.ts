/**
 * `redactKeys` (docs/guides/idempotency.md "Where a key shows"): a copy of a task, message or answer with every
 * idempotency key replaced by `[redacted #<keyHash>]`, the input untouched, everything else kept, and hostile
 * JSON (an own `__proto__` entry) copied as data.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  IDEMPOTENCY_METADATA_KEY,
  keyHash,
  redactKeys,
  redactedKey,
  setKey,
  validateKey,
} from '../../src/idempotency/index.js';
import type { Message, Task } from '../../src/protocol/model.js';

const KEY = 'order-1234-payment-key';

function keyed(id: string, key = KEY): Message {
  return setKey({ messageId: id, role: 'ROLE_USER', parts: [{ text: 'pay' }], metadata: { note: 'x' } }, key);
}

const task: Task = {
  id: 't1',
  contextId: 'c1',
  status: {
    state: 'TASK_STATE_COMPLETED',
    message: { messageId: 'a1', role: 'ROLE_AGENT', parts: [{ text: 'ok' }] },
  },
  history: [
    keyed('m1'),
    { messageId: 'a0', role: 'ROLE_AGENT', parts: [{ text: 'working' }] },
    keyed('m2', 'second-key-000000001'),
  ],
  artifacts: [
    {
      artifactId: 'r',
      parts: [{ data: { metadata: { [IDEMPOTENCY_METADATA_KEY]: 'in-data-key-00000001' } } }],
    },
  ],
  metadata: { owner: 'me' },
};

describe('redactKeys', () => {
  it('replaces every key in a task, keeps the rest, and leaves the input as it was', () => {
    const before = JSON.stringify(task);
    const out = redactKeys(task);
    expect(JSON.stringify(task)).toBe(before);
    expect(out.history?.[0]?.metadata).toEqual({
      note: 'x',
      [IDEMPOTENCY_METADATA_KEY]: `[redacted #${keyHash(KEY)}]`,
    });
    expect(out.history?.[2]?.metadata?.[IDEMPOTENCY_METADATA_KEY]).toBe(redactedKey('second-key-000000001'));
    expect(out.history?.[0]?.extensions).toEqual(task.history?.[0]?.extensions);
    expect(out.status).toEqual(task.status);
    expect(out.metadata).toEqual({ owner: 'me' });
    // Free-form data is redacted too: a `metadata` entry anywhere is treated alike.
    expect(JSON.stringify(out)).not.toContain('in-data-key-00000001');
    expect(JSON.stringify(out)).not.toContain(KEY);
  });

  it('redacts answers of every shape: a send result, a stream event, a page of tasks', () => {
    for (const value of [
      { task },
      { message: keyed('m3') },
      {
        statusUpdate: {
          taskId: 't1',
          contextId: 'c1',
          status: { state: 'TASK_STATE_WORKING', message: keyed('m4') },
        },
      },
      { tasks: [task, task], nextPageToken: '', pageSize: 2, totalSize: 2 },
    ]) {
      const text = JSON.stringify(redactKeys(value));
      expect(text).not.toContain(KEY);
      expect(text).toContain(redactedKey(KEY));
    }
  });

  it('a stand-in is never a valid key, so a redacted message resent is refused rather than sent with it', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 16, maxLength: 64 }), (key) => {
        expect(validateKey(redactedKey(key))).not.toBeUndefined();
      }),
    );
  });

  it('keeps a non-string key entry, a non-object metadata and class instances as they are', () => {
    const odd = {
      metadata: { [IDEMPOTENCY_METADATA_KEY]: 42 },
      other: { metadata: 'text' },
      when: new Date(0),
    };
    const out = redactKeys(odd);
    expect(out).toEqual(odd);
    expect(out.when).toBe(odd.when);
  });

  it('copies an own __proto__ entry of parsed JSON as data, without touching any prototype', () => {
    const hostile = JSON.parse(
      `{"__proto__": {"polluted": true}, "metadata": {"${IDEMPOTENCY_METADATA_KEY}": "${KEY}", "__proto__": {"x": 1}}}`,
    ) as Record<string, unknown>;
    const out = redactKeys(hostile);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(JSON.stringify(out)).not.toContain(KEY);
  });
});
