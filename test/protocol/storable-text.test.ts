/**
 * `unstorableTextProblem` (ADR 0059): a string passes exactly when UTF-8 holds it as it is and it has no U+0000,
 * i.e. exactly when a trip through the UTF-8 every store's driver writes gives it back unchanged and PostgreSQL's
 * `text` can take it. And the walks find a bad name wherever the request carries one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  findUnstorableInMessage,
  findUnstorableKey,
  findUnstorableParam,
  unstorableTextProblem,
} from '../../src/protocol/storable-text.js';

/** Strings of arbitrary UTF-16 code units: lone surrogates, pairs, U+0000 and ordinary text mixed. */
const codeUnits = fc
  .array(
    fc.oneof(
      fc.constantFrom(0, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0x41, 0xfffd),
      fc.integer({ min: 0, max: 0xffff }),
    ),
    { maxLength: 12 },
  )
  .map((units) => String.fromCharCode(...units));

describe('unstorableTextProblem', () => {
  it('passes a string exactly when UTF-8 gives it back unchanged and it holds no U+0000', () => {
    fc.assert(
      fc.property(codeUnits, (s) => {
        const survivesUtf8 = Buffer.from(s, 'utf8').toString('utf8') === s;
        expect(unstorableTextProblem(s) === undefined).toBe(survivesUtf8 && !s.includes('\u0000'));
      }),
      { numRuns: 5000 },
    );
  });

  it('says which of the two it found', () => {
    expect(unstorableTextProblem('a\u0000')).toMatch(/U\+0000/);
    expect(unstorableTextProblem('\udc00a')).toMatch(/unpaired UTF-16 surrogate/);
    expect(unstorableTextProblem('\u{1F600}\u0001\uFFFD')).toBeUndefined();
  });
});

describe('the walks', () => {
  it('find a key at any depth of metadata, inside arrays too, and name the object holding it', () => {
    expect(findUnstorableKey({ a: [{ ok: 1 }, { b: { '\u0000': 1 } }] }, ['metadata'])?.field).toBe(
      'metadata.a[1].b',
    );
    expect(findUnstorableKey({ a: 'values may hold \u0000' }, ['metadata'])).toBeUndefined();
  });

  it('check every id of a message, its references, and the metadata of the message and its parts', () => {
    const base = { messageId: 'm', role: 'ROLE_USER' as const, parts: [{ text: 'x' }] };
    expect(findUnstorableInMessage({ ...base, taskId: '\ud800' }, 'message')?.field).toBe('message.taskId');
    expect(findUnstorableInMessage({ ...base, referenceTaskIds: ['ok', 'b\u0000'] }, 'message')?.field).toBe(
      'message.referenceTaskIds[1]',
    );
    const part = { text: 'x', metadata: { '\udfff': 1 } };
    expect(findUnstorableInMessage({ ...base, parts: [{ text: 'y' }, part] }, 'message')?.field).toBe(
      'message.parts[1].metadata',
    );
    expect(findUnstorableInMessage({ ...base, parts: [{ text: 'text may hold \u0000' }] }, 'message')).toBe(
      undefined,
    );
  });

  it('check the names of any request, and of a push config sent inline', () => {
    expect(findUnstorableParam({ tenant: 't', pageToken: '\u0000' })?.field).toBe('pageToken');
    expect(
      findUnstorableParam({ configuration: { taskPushNotificationConfig: { url: 'u', tenant: '\ud800' } } })
        ?.field,
    ).toBe('configuration.taskPushNotificationConfig.tenant');
    expect(findUnstorableParam({ id: 'x', url: 'https://h/\u0000' })).toBeUndefined();
  });
});
