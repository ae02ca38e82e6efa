/**
 * Checks one delivery before anything is applied (docs/semantics.md §5, "Receiver"): the webhook id and
 * timestamp, the timestamp's distance from our clock, the Standard Webhooks signature (any of the configured
 * keys, so secrets can be rotated), the notification token, the sequence header, then the body. The body is parsed
 * only after the signature held, so an unauthenticated caller cannot make us parse anything.
 */
import { MAX_JSON_DEPTH, jsonDepth } from '../protocol/json-depth.js';
import type { StreamResponse } from '../protocol/model.js';
import { safeParseWith } from '../protocol/parse.js';
import { StreamResponseSchema } from '../protocol/schemas/core.js';
import {
  NOTIFICATION_TOKEN_HEADER,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SEQUENCE_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  parseWebhookId,
  webhookSignatureMatches,
} from '../webhook-wire/index.js';
import { sameSecret } from './constant-time.js';
import { headerOf, type HeadersInput } from './header-read.js';
import { refusal, type WebhookVerdict } from './verdict.js';

/** What the checks need. */
export interface VerifySettings {
  /** Signing keys (any may match); `undefined` when the receiver was told it is unsigned. */
  readonly keys: readonly Uint8Array[] | undefined;
  /** The notification token expected in `X-A2A-Notification-Token`, if any. */
  readonly token: string | undefined;
  /** How far the timestamp may be from our clock, either way, in seconds. */
  readonly toleranceS: number;
  /** Our clock, in milliseconds since the epoch. */
  readonly now: () => number;
}

/** A delivery that passed every check. */
export interface VerifiedDelivery {
  readonly webhookId: string;
  readonly taskId: string;
  readonly seq: number;
  /** When the sender signed this attempt (seconds since the epoch). */
  readonly timestampS: number;
  readonly event: StreamResponse;
}

/** The task an event names, when it names one (a message may not). */
function taskIdOf(event: StreamResponse): string | undefined {
  if ('task' in event) return event.task.id;
  if ('statusUpdate' in event) return event.statusUpdate.taskId;
  if ('artifactUpdate' in event) return event.artifactUpdate.taskId;
  return event.message.taskId;
}

/** Checks the delivery; a refusal verdict names the first check that failed. */
export function verifyDelivery(
  headers: HeadersInput,
  body: string,
  settings: VerifySettings,
): VerifiedDelivery | WebhookVerdict {
  const id = headerOf(headers, WEBHOOK_ID_HEADER);
  if (id === undefined) return refusal('MISSING_HEADER', `the ${WEBHOOK_ID_HEADER} header is missing`);
  const named = parseWebhookId(id);
  if (named === undefined)
    return refusal(
      'INVALID_WEBHOOK_ID',
      `${WEBHOOK_ID_HEADER} is not <taskId>:<seq> with seq a positive integer`,
    );
  const rawTimestamp = headerOf(headers, WEBHOOK_TIMESTAMP_HEADER);
  if (rawTimestamp === undefined)
    return refusal('MISSING_HEADER', `the ${WEBHOOK_TIMESTAMP_HEADER} header is missing`);
  if (!/^\d{1,15}$/.test(rawTimestamp))
    return refusal('INVALID_TIMESTAMP', `${WEBHOOK_TIMESTAMP_HEADER} is not whole seconds since the epoch`);
  const timestampS = Number(rawTimestamp);

  // A copy captured and replayed later is refused however well it is signed; a sender's retry is signed afresh.
  const skewS = Math.abs(settings.now() / 1000 - timestampS);
  if (skewS > settings.toleranceS)
    return refusal(
      'TIMESTAMP_OUT_OF_TOLERANCE',
      `${WEBHOOK_TIMESTAMP_HEADER} is ${Math.round(skewS)} s from this receiver's clock (tolerance ${settings.toleranceS} s)`,
    );

  if (settings.keys !== undefined) {
    // Repeated headers arrive joined by ", "; Standard Webhooks separates signatures by a space.
    const signatures = headerOf(headers, WEBHOOK_SIGNATURE_HEADER, ' ')?.replace(/,\s+/g, ' ');
    if (signatures === undefined || signatures.trim() === '')
      return refusal('SIGNATURE_MISSING', `the ${WEBHOOK_SIGNATURE_HEADER} header is missing`);
    let match = false;
    // Every key is tried, so the time taken does not say which one matched.
    for (const key of settings.keys)
      if (webhookSignatureMatches(key, id, timestampS, body, signatures)) match = true;
    if (!match)
      return refusal('SIGNATURE_MISMATCH', `no ${WEBHOOK_SIGNATURE_HEADER} entry matches this delivery`);
  }

  if (settings.token !== undefined) {
    const given = headerOf(headers, NOTIFICATION_TOKEN_HEADER);
    if (given === undefined || !sameSecret(given, settings.token))
      return refusal('TOKEN_MISMATCH', `${NOTIFICATION_TOKEN_HEADER} is missing or not the expected token`);
  }

  const sequence = headerOf(headers, WEBHOOK_SEQUENCE_HEADER);
  if (sequence === undefined)
    return refusal('MISSING_HEADER', `the ${WEBHOOK_SEQUENCE_HEADER} header is missing`);
  if (sequence !== String(named.seq))
    return refusal(
      'SEQUENCE_MISMATCH',
      `${WEBHOOK_SEQUENCE_HEADER} is not the sequence number of ${WEBHOOK_ID_HEADER}`,
    );

  if (jsonDepth(body, MAX_JSON_DEPTH) > MAX_JSON_DEPTH)
    return refusal('INVALID_JSON', `the body nests deeper than ${MAX_JSON_DEPTH} levels`);
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch {
    return refusal('INVALID_JSON', 'the body is not JSON');
  }
  const parsed = safeParseWith(StreamResponseSchema, raw, 'webhook body (an A2A StreamResponse)');
  if (!parsed.success) return refusal('INVALID_EVENT', parsed.message);
  const eventTask = taskIdOf(parsed.data);
  if (eventTask !== undefined && eventTask !== named.taskId)
    return refusal('TASK_MISMATCH', `the event is for another task than ${WEBHOOK_ID_HEADER} names`);
  return { webhookId: id, taskId: named.taskId, seq: named.seq, timestampS, event: parsed.data };
}
