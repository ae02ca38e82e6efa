/**
 * What the receiver refuses before applying anything (docs/semantics.md §5, "Receiver"): signatures (valid,
 * wrong key, tampered body, tampered id, stale and future timestamps, several in one header, rotation), the
 * notification token, malformed deliveries; each refusal has its status and a structured reason.
 */
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../src/protocol/model.js';
import {
  WEBHOOK_ID_HEADER,
  WEBHOOK_SEQUENCE_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  WebhookConfigError,
  WebhookSecretError,
  createWebhookReceiver,
  isRefusal,
  parseWebhookSecret,
  signWebhook,
  type WebhookReceiverOptions,
  type WebhookVerdict,
} from '../../src/webhooks/index.js';
import { delivery, newSecret, type Delivery } from './sender.js';

const TASK = 'task-verify';

function receiverWith(extra: Partial<WebhookReceiverOptions<undefined>> = {}) {
  const applied: StreamResponse[] = [];
  const receiver = createWebhookReceiver({
    apply: (event) => void applied.push(event),
    getTask: () => Promise.reject(new Error('no GetTask in these tests')),
    onError: () => undefined,
    ...extra,
  });
  return { receiver, applied };
}

function reasonOf(v: WebhookVerdict): string | undefined {
  return isRefusal(v) ? v.body.error.reason : undefined;
}

describe('signature', () => {
  const secret = newSecret();

  it('accepts a valid signature and applies the event', async () => {
    const { receiver, applied } = receiverWith({ secret });
    const v = await receiver.receive(delivery(TASK, 1, { secret }));
    expect(v).toEqual({ status: 200, body: { outcome: 'applied', taskId: TASK, seq: 1 } });
    expect(applied).toHaveLength(1);
  });

  it('refuses a signature made with another key (401), and applies nothing', async () => {
    const { receiver, applied } = receiverWith({ secret });
    const v = await receiver.receive(delivery(TASK, 1, { secret: newSecret() }));
    expect(v.status).toBe(401);
    expect(reasonOf(v)).toBe('SIGNATURE_MISMATCH');
    expect(applied).toHaveLength(0);
  });

  it('refuses a tampered body', async () => {
    const { receiver, applied } = receiverWith({ secret });
    const d = delivery(TASK, 1, { secret });
    const v = await receiver.receive({ ...d, body: d.body.replace('event 1', 'event X') });
    expect(reasonOf(v)).toBe('SIGNATURE_MISMATCH');
    expect(applied).toHaveLength(0);
  });

  it('refuses a tampered webhook id (the seq a receiver deduplicates on is signed)', async () => {
    const { receiver } = receiverWith({ secret });
    const d = delivery(TASK, 1, { secret });
    const headers = { ...d.headers, [WEBHOOK_ID_HEADER]: `${TASK}:2`, [WEBHOOK_SEQUENCE_HEADER]: '2' };
    expect(reasonOf(await receiver.receive({ headers, body: d.body }))).toBe('SIGNATURE_MISMATCH');
  });

  it('refuses a tampered timestamp', async () => {
    const { receiver } = receiverWith({ secret });
    const d = delivery(TASK, 1, { secret });
    const ts = Number(d.headers[WEBHOOK_TIMESTAMP_HEADER]) - 1;
    const headers = { ...d.headers, [WEBHOOK_TIMESTAMP_HEADER]: String(ts) };
    expect(reasonOf(await receiver.receive({ headers, body: d.body }))).toBe('SIGNATURE_MISMATCH');
  });

  it('refuses stale and future timestamps beyond the tolerance, both ways, even when well signed', async () => {
    const { receiver, applied } = receiverWith({ secret });
    const now = Math.floor(Date.now() / 1000);
    for (const ts of [now - 301, now + 301]) {
      const v = await receiver.receive(delivery(TASK, 1, { secret, timestampS: ts }));
      expect(v.status).toBe(401);
      expect(reasonOf(v)).toBe('TIMESTAMP_OUT_OF_TOLERANCE');
    }
    expect(applied).toHaveLength(0);
    // Inside the tolerance, both ways: accepted.
    expect((await receiver.receive(delivery(TASK, 1, { secret, timestampS: now - 290 }))).status).toBe(200);
    expect((await receiver.receive(delivery(TASK, 2, { secret, timestampS: now + 290 }))).status).toBe(200);
  });

  it('honours a custom tolerance and clock', async () => {
    const { receiver } = receiverWith({ secret, toleranceS: 10, now: () => 1_000_000_000 });
    expect(reasonOf(await receiver.receive(delivery(TASK, 1, { secret, timestampS: 1_000_000 - 11 })))).toBe(
      'TIMESTAMP_OUT_OF_TOLERANCE',
    );
    expect((await receiver.receive(delivery(TASK, 1, { secret, timestampS: 1_000_000 + 9 }))).status).toBe(
      200,
    );
  });

  it('accepts a header with several signatures when one matches (space- or comma-joined)', async () => {
    const { receiver } = receiverWith({ secret });
    const d = delivery(TASK, 1, { secret });
    const other = signWebhook(
      parseWebhookSecret(newSecret()),
      `${TASK}:1`,
      Number(d.headers[WEBHOOK_TIMESTAMP_HEADER]),
      d.body,
    );
    const good = d.headers[WEBHOOK_SIGNATURE_HEADER]!;
    const spaced = { ...d.headers, [WEBHOOK_SIGNATURE_HEADER]: `${other} v2,bm90LWEtdjE= ${good}` };
    expect((await receiver.receive({ headers: spaced, body: d.body })).status).toBe(200);
    // Two header lines, as node joins them.
    const d2 = delivery(TASK, 2, { secret });
    const joined = {
      ...d2.headers,
      [WEBHOOK_SIGNATURE_HEADER]: `${other}, ${d2.headers[WEBHOOK_SIGNATURE_HEADER]!}`,
    };
    expect((await receiver.receive({ headers: joined, body: d2.body })).status).toBe(200);
    // Only wrong ones: refused.
    const wrong = { ...d.headers, [WEBHOOK_SIGNATURE_HEADER]: `${other} ${other}` };
    expect(reasonOf(await receiver.receive({ headers: wrong, body: d.body }))).toBe('SIGNATURE_MISMATCH');
  });

  it('accepts any of several secrets (rotation)', async () => {
    const next = newSecret();
    const { receiver } = receiverWith({ secret: [next, secret] });
    expect((await receiver.receive(delivery(TASK, 1, { secret }))).status).toBe(200);
    expect((await receiver.receive(delivery(TASK, 2, { secret: next }))).status).toBe(200);
    expect(reasonOf(await receiver.receive(delivery(TASK, 3, { secret: newSecret() })))).toBe(
      'SIGNATURE_MISMATCH',
    );
  });

  it('refuses a delivery without a signature when a secret is configured', async () => {
    const { receiver } = receiverWith({ secret });
    const v = await receiver.receive(delivery(TASK, 1));
    expect(v.status).toBe(401);
    expect(reasonOf(v)).toBe('SIGNATURE_MISSING');
  });

  it('reads headers from a Fetch Headers and from a record in any case', async () => {
    const { receiver } = receiverWith({ secret });
    const d = delivery(TASK, 1, { secret });
    expect((await receiver.receive({ headers: new Headers(d.headers), body: d.body })).status).toBe(200);
    const d2 = delivery(TASK, 2, { secret });
    const upper = Object.fromEntries(Object.entries(d2.headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(await receiver.receive({ headers: upper, body: d2.body })).toEqual({
      status: 200,
      body: { outcome: 'applied', taskId: TASK, seq: 2 },
    });
  });
});

describe('configuration', () => {
  it('a receiver without a secret must say unsigned: true', () => {
    expect(() => receiverWith()).toThrow(WebhookConfigError);
    expect(() => receiverWith({ secret: newSecret(), unsigned: true })).toThrow(WebhookConfigError);
    expect(() => receiverWith({ secret: 'not-a-secret' })).toThrow(WebhookSecretError);
    expect(() => receiverWith({ unsigned: true, toleranceS: -1 })).toThrow(WebhookConfigError);
  });

  it('an unsigned receiver applies unsigned deliveries but still checks the timestamp', async () => {
    const { receiver, applied } = receiverWith({ unsigned: true });
    expect((await receiver.receive(delivery(TASK, 1))).status).toBe(200);
    const stale = await receiver.receive(
      delivery(TASK, 2, { timestampS: Math.floor(Date.now() / 1000) - 3600 }),
    );
    expect(reasonOf(stale)).toBe('TIMESTAMP_OUT_OF_TOLERANCE');
    expect(applied).toHaveLength(1);
  });
});

describe('notification token', () => {
  it('requires the expected token when one is configured (401 otherwise)', async () => {
    const secret = newSecret();
    const { receiver, applied } = receiverWith({ secret, token: 'tok-123' });
    expect(reasonOf(await receiver.receive(delivery(TASK, 1, { secret })))).toBe('TOKEN_MISMATCH');
    const wrong = await receiver.receive(delivery(TASK, 1, { secret, token: 'tok-124' }));
    expect(wrong.status).toBe(401);
    expect(reasonOf(wrong)).toBe('TOKEN_MISMATCH');
    expect(applied).toHaveLength(0);
    expect((await receiver.receive(delivery(TASK, 1, { secret, token: 'tok-123' }))).status).toBe(200);
  });
});

describe('malformed deliveries (400, with a reason)', () => {
  const secret = newSecret();
  const cases: [string, (d: Delivery) => Delivery, string][] = [
    ['no webhook-id', (d) => ({ ...d, headers: omit(d.headers, WEBHOOK_ID_HEADER) }), 'MISSING_HEADER'],
    ['no timestamp', (d) => ({ ...d, headers: omit(d.headers, WEBHOOK_TIMESTAMP_HEADER) }), 'MISSING_HEADER'],
    [
      'id without seq',
      (d) => ({ ...d, headers: { ...d.headers, [WEBHOOK_ID_HEADER]: TASK } }),
      'INVALID_WEBHOOK_ID',
    ],
    [
      'seq 0',
      (d) => ({ ...d, headers: { ...d.headers, [WEBHOOK_ID_HEADER]: `${TASK}:0` } }),
      'INVALID_WEBHOOK_ID',
    ],
    [
      'timestamp not a number',
      (d) => ({ ...d, headers: { ...d.headers, [WEBHOOK_TIMESTAMP_HEADER]: '12.5' } }),
      'INVALID_TIMESTAMP',
    ],
  ];
  for (const [name, mutate, reason] of cases) {
    it(name, async () => {
      const { receiver } = receiverWith({ secret });
      const v = await receiver.receive(mutate(delivery(TASK, 1, { secret })));
      expect(v.status).toBe(400);
      expect(reasonOf(v)).toBe(reason);
    });
  }

  it('a sequence header that is not the id’s seq, or missing', async () => {
    const { receiver } = receiverWith({ secret });
    const d = delivery(TASK, 1, { secret });
    expect(
      reasonOf(await receiver.receive({ ...d, headers: { ...d.headers, [WEBHOOK_SEQUENCE_HEADER]: '2' } })),
    ).toBe('SEQUENCE_MISMATCH');
    expect(
      reasonOf(await receiver.receive({ ...d, headers: omit(d.headers, WEBHOOK_SEQUENCE_HEADER) })),
    ).toBe('MISSING_HEADER');
  });

  it('a body that is not JSON, too deep, not a StreamResponse, or for another task', async () => {
    const { receiver, applied } = receiverWith({ secret });
    const bodies: [string, string][] = [
      ['{not json', 'INVALID_JSON'],
      ['['.repeat(100) + ']'.repeat(100), 'INVALID_JSON'],
      ['{"task":{"id":"task-verify"},"message":{}}', 'INVALID_EVENT'],
      ['{"hello":1}', 'INVALID_EVENT'],
      [
        JSON.stringify({
          statusUpdate: { taskId: 'other', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } },
        }),
        'TASK_MISMATCH',
      ],
    ];
    for (const [body, reason] of bodies) {
      const v = await receiver.receive(delivery(TASK, 1, { secret, body }));
      expect(v.status, body.slice(0, 20)).toBe(400);
      expect(reasonOf(v)).toBe(reason);
    }
    expect(applied).toHaveLength(0);
  });

  it('a body over the limit is 413', async () => {
    const { receiver } = receiverWith({ secret, maxBodyBytes: 100 });
    const v = await receiver.receive(delivery(TASK, 1, { secret }));
    expect(v.status).toBe(413);
    expect(reasonOf(v)).toBe('BODY_TOO_LARGE');
  });
});

function omit(headers: Record<string, string>, name: string): Record<string, string> {
  const copy = { ...headers };
  delete copy[name];
  return copy;
}
