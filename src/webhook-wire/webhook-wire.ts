/**
 * The wire form of an a2a-once webhook delivery (docs/semantics.md §5), shared by the sender (the server's push
 * delivery) and the receiver (`a2a-once/webhooks`), so the two can never disagree on a header name or on the
 * bytes a signature covers. It follows Standard Webhooks (https://www.standardwebhooks.com): the signature covers
 * `${webhook-id}.${webhook-timestamp}.${body}`, and the webhook id names the task and the event's sequence number,
 * so the pair a receiver deduplicates on is itself signed.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Standard Webhooks: the delivery's id, the same for every attempt of one event (`<taskId>:<seq>`). */
export const WEBHOOK_ID_HEADER = 'webhook-id';
/** Standard Webhooks: when this attempt was signed, in whole seconds since the epoch. */
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
/** Standard Webhooks: space-separated `v1,<base64 HMAC-SHA256>` signatures (only when the server has a secret). */
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';
/** The event's per-task sequence number (also inside the signed webhook id). */
export const WEBHOOK_SEQUENCE_HEADER = 'a2a-once-sequence';
/** A2A: the push config's `token`, echoed so the receiver can tell the notification is for it. */
export const NOTIFICATION_TOKEN_HEADER = 'x-a2a-notification-token';
/** How far a receiver accepts a timestamp from its own clock, by default (Standard Webhooks suggests 5 min). */
export const DEFAULT_TIMESTAMP_TOLERANCE_S = 300;

/** The webhook id of the event `seq` of `taskId`. */
export function webhookId(taskId: string, seq: number): string {
  return `${taskId}:${seq}`;
}

/** The task and sequence number a webhook id names, or undefined when it is not one of ours. */
export function parseWebhookId(id: string): { taskId: string; seq: number } | undefined {
  const at = id.lastIndexOf(':');
  if (at <= 0) return undefined;
  const digits = id.slice(at + 1);
  if (!/^[1-9]\d{0,15}$/.test(digits)) return undefined;
  const seq = Number(digits);
  return Number.isSafeInteger(seq) ? { taskId: id.slice(0, at), seq } : undefined;
}

/** A signing secret that is not in the Standard Webhooks form. */
export class WebhookSecretError extends Error {
  readonly code = 'WEBHOOK_SECRET_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'WebhookSecretError';
  }
}

/**
 * The key bytes of a Standard Webhooks secret: `whsec_` then base64 of 24 to 64 random bytes. Typed as
 * `Uint8Array` (a Buffer is one) so the package's types need no `@types/node` (ADR 0060).
 * @throws WebhookSecretError naming what is wrong (never echoing the secret)
 */
export function parseWebhookSecret(secret: string): Uint8Array {
  if (!secret.startsWith('whsec_'))
    throw new WebhookSecretError('a webhook secret must have the Standard Webhooks form whsec_<base64>');
  const b64 = secret.slice('whsec_'.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0)
    throw new WebhookSecretError('a webhook secret must be whsec_ followed by standard base64');
  const key = Buffer.from(b64, 'base64');
  if (key.length < 24 || key.length > 64)
    throw new WebhookSecretError(`a webhook secret must hold 24 to 64 bytes; this one holds ${key.length}`);
  return key;
}

/** The `v1,<base64>` signature of one delivery attempt. */
export function signWebhook(key: Uint8Array, id: string, timestampS: number, body: string): string {
  const mac = createHmac('sha256', key).update(`${id}.${timestampS}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/**
 * Whether any `v1` signature in a `webhook-signature` header is the one `key` makes for this attempt, compared in
 * constant time (a receiver must not leak how much of a forged signature was right).
 */
export function webhookSignatureMatches(
  key: Uint8Array,
  id: string,
  timestampS: number,
  body: string,
  header: string,
): boolean {
  const expected = Buffer.from(signWebhook(key, id, timestampS, body).slice(3), 'base64');
  let match = false;
  for (const entry of header.split(' ')) {
    if (!entry.startsWith('v1,')) continue;
    const given = Buffer.from(entry.slice(3), 'base64');
    // Every candidate is compared, so the time taken does not say which one matched.
    if (given.length === expected.length && timingSafeEqual(given, expected)) match = true;
  }
  return match;
}
