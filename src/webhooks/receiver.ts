/**
 * `createWebhookReceiver`: the receiving side of a2a-once push notifications (docs/semantics.md §5, "Receiver";
 * ADR 0046). It verifies each delivery (signature, timestamp, token, shape), then applies each `(taskId, seq)`
 * exactly once and in order through the processed-set, repairing a gap from a GetTask snapshot. Its core takes
 * headers and the raw body and returns a verdict, so it fits any HTTP framework; `fetch` wraps it for Fetch-style
 * ones (Hono, Bun, Deno, workers) and `nodeWebhookListener` for node:http and Express.
 *
 * @example
 * const receiver = createWebhookReceiver({
 *   secret: process.env.WEBHOOK_SECRET!, // whsec_...
 *   store: await SqliteProcessedSet.open('./receipts.db'),
 *   getTask: await A2AClient.fromCardUrl('https://agent.example.com'),
 *   apply(event, info) { info.tx.prepare('INSERT INTO seen VALUES (?)').run(info.webhookId); },
 * });
 * app.post('/webhooks/a2a', (c) => receiver.fetch(c.req.raw)); // Hono
 */
import { DEFAULT_TIMESTAMP_TOLERANCE_S, parseWebhookSecret } from '../webhook-wire/index.js';
import { AdvanceSignal } from './advance-signal.js';
import { ApplyError, applyInOrder, type ApplyFn } from './apply-in-order.js';
import type { HeadersInput } from './header-read.js';
import { KeyedMutex } from './keyed-mutex.js';
import { MemoryProcessedSet } from './memory-processed-set.js';
import { WebhookConfigError, type ProcessedSet } from './processed-set.js';
import { readLimited } from './read-limited.js';
import { GapRepairError, type TaskSource } from './task-source.js';
import { accepted, refusal, verdictResponse, type WebhookVerdict } from './verdict.js';
import { verifyDelivery, type VerifySettings } from './verify-delivery.js';

/** What went wrong while applying, for the receiver's log (no secret and no body is ever passed). */
export interface WebhookErrorContext {
  readonly reason: 'APPLY_FAILED' | 'GAP_REPAIR_FAILED' | 'STORE_FAILED';
  readonly taskId: string;
  readonly seq: number;
}

/** Options of `createWebhookReceiver`. */
export interface WebhookReceiverOptions<Tx> {
  /**
   * The Standard Webhooks secret(s) the sender signs with (`whsec_<base64>`); several during a rotation, any of
   * which may match. Required unless `unsigned: true`.
   */
  readonly secret?: string | readonly string[];
  /** Accept deliveries without checking a signature: must be said explicitly (anyone who can reach you can post). */
  readonly unsigned?: boolean;
  /** The push config's `token`: when set, `X-A2A-Notification-Token` must equal it (compared in constant time). */
  readonly token?: string;
  /** How far `webhook-timestamp` may be from this clock, either way, in seconds. Default 300. */
  readonly toleranceS?: number;
  /** Where applied sequence numbers are kept. Default: a `MemoryProcessedSet` (exactly once per process life). */
  readonly store?: ProcessedSet<Tx>;
  /** Makes an event's effect; called once per `(taskId, seq)`, in order, and with `kind: 'snapshot'` on a gap. */
  readonly apply: ApplyFn<Tx>;
  /** Where a gap's snapshot comes from: an `A2AClient` of the sending agent, or a function returning the task. */
  readonly getTask: TaskSource;
  /** Separates receivers sharing one table (for example one per sending agent). Default "". */
  readonly scope?: string;
  /** How long an early event waits for its predecessors before the gap is repaired, in ms. Default 1000. */
  readonly reorderWindowMs?: number;
  /** How often an early event looks for progress made by other processes, in ms. Default 50. */
  readonly pollIntervalMs?: number;
  /** Largest body accepted, in bytes. Default 4 MiB. */
  readonly maxBodyBytes?: number;
  /** Told about 5xx answers (the sender retries them). Default: one line on stderr. */
  readonly onError?: (error: unknown, context: WebhookErrorContext) => void;
  /** This receiver's clock in ms (tests). Default `Date.now`. */
  readonly now?: () => number;
}

/** A receiver. */
export interface WebhookReceiver<Tx> {
  /** The core: checks and applies one delivery given its headers and raw body (the exact bytes signed). */
  receive(delivery: { headers: HeadersInput; body: string }): Promise<WebhookVerdict>;
  /** The same for a Fetch `Request` (POST only). */
  fetch(request: Request): Promise<Response>;
  /** The processed-set in use. */
  readonly store: ProcessedSet<Tx>;
  /** The largest body accepted, in bytes (adapters read no more). */
  readonly maxBodyBytes: number;
}

const DEFAULT_MAX_BODY = 4 * 1024 * 1024;

function defaultOnError(error: unknown, context: WebhookErrorContext): void {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
  console.error(JSON.stringify({ msg: 'a2a-once webhook not applied', ...context, error: message, cause }));
}

function keysOf(options: WebhookReceiverOptions<unknown>): Uint8Array[] | undefined {
  const secrets = options.secret === undefined ? [] : [options.secret].flat();
  if (secrets.length > 0 && options.unsigned === true)
    throw new WebhookConfigError('a webhook receiver is given a secret and unsigned: true: choose one');
  if (secrets.length === 0) {
    if (options.unsigned === true) return undefined;
    throw new WebhookConfigError(
      'a webhook receiver needs a secret (whsec_...) or, to accept unsigned deliveries, unsigned: true',
    );
  }
  return secrets.map((s) => parseWebhookSecret(s));
}

function nonNegative(value: number | undefined, fallback: number, what: string): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v < 0) throw new WebhookConfigError(`${what} must be a non-negative number`);
  return v;
}

/** Builds a receiver; throws `WebhookConfigError` (or `WebhookSecretError`) on options that cannot work. */
export function createWebhookReceiver<Tx = undefined>(
  options: WebhookReceiverOptions<Tx>,
): WebhookReceiver<Tx> {
  const verify: VerifySettings = {
    keys: keysOf(options as WebhookReceiverOptions<unknown>),
    token: options.token,
    toleranceS: nonNegative(options.toleranceS, DEFAULT_TIMESTAMP_TOLERANCE_S, 'toleranceS'),
    now: options.now ?? Date.now,
  };
  if (typeof options.apply !== 'function') throw new WebhookConfigError('apply must be a function');
  if (options.getTask === undefined)
    throw new WebhookConfigError('getTask (an A2AClient or a function) is required');
  const store = options.store ?? (new MemoryProcessedSet() as unknown as ProcessedSet<Tx>);
  const maxBodyBytes = nonNegative(options.maxBodyBytes, DEFAULT_MAX_BODY, 'maxBodyBytes');
  const onError = options.onError ?? defaultOnError;
  const order = {
    store,
    scope: options.scope ?? '',
    apply: options.apply,
    tasks: options.getTask,
    reorderWindowMs: nonNegative(options.reorderWindowMs, 1000, 'reorderWindowMs'),
    pollIntervalMs: Math.max(1, nonNegative(options.pollIntervalMs, 50, 'pollIntervalMs')),
    queue: new KeyedMutex(),
    signal: new AdvanceSignal(),
  };

  async function receive(delivery: { headers: HeadersInput; body: string }): Promise<WebhookVerdict> {
    if (Buffer.byteLength(delivery.body, 'utf8') > maxBodyBytes)
      return refusal('BODY_TOO_LARGE', `the body is larger than ${maxBodyBytes} bytes`);
    const verified = verifyDelivery(delivery.headers, delivery.body, verify);
    if ('status' in verified) return verified;
    try {
      return accepted(await applyInOrder(order, verified), verified.taskId, verified.seq);
    } catch (err) {
      const reason =
        err instanceof ApplyError
          ? 'APPLY_FAILED'
          : err instanceof GapRepairError
            ? 'GAP_REPAIR_FAILED'
            : 'STORE_FAILED';
      onError(err, { reason, taskId: verified.taskId, seq: verified.seq });
      const message =
        reason === 'APPLY_FAILED'
          ? 'the event could not be applied; nothing was recorded, retry later'
          : reason === 'GAP_REPAIR_FAILED'
            ? 'events are missing and the task could not be fetched to repair the gap; retry later'
            : 'the processed-set could not be read or written; retry later';
      return refusal(reason, message);
    }
  }

  return {
    store,
    maxBodyBytes,
    receive,
    async fetch(request) {
      if (request.method !== 'POST')
        return verdictResponse(refusal('METHOD_NOT_ALLOWED', 'webhooks are delivered with POST'));
      const body = await readLimited(request, maxBodyBytes);
      if (body === undefined)
        return verdictResponse(refusal('BODY_TOO_LARGE', `the body is larger than ${maxBodyBytes} bytes`));
      return verdictResponse(await receive({ headers: request.headers, body }));
    },
  };
}
