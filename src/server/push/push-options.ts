/**
 * Options of push delivery (docs/semantics.md §5, ADR 0045) and their defaults.
 */
import { parseWebhookSecret } from '../../webhook-wire/webhook-wire.js';
import { systemResolver, type WebhookResolver } from './webhook-url-guard.js';

/** How a server delivers push notifications. Every field has a default. */
export interface PushDeliveryOptions {
  /**
   * A Standard Webhooks secret (`whsec_<base64>` of 24 to 64 bytes): every delivery then carries a
   * `webhook-signature` the receiver checks. Without one, deliveries are not signed.
   */
  signingSecret?: string;
  /** Let webhooks point at loopback, private and other non-public addresses (tests, trusted networks). */
  allowPrivateTargets?: boolean;
  /** Longest one attempt may take, connect to answer (default 5 s). */
  attemptTimeoutMs?: number;
  /** Failing for this long, a webhook's backlog is given up (default 24 h); later events are tried afresh. */
  giveUpAfterMs?: number;
  /** Deliveries in flight at once, all webhooks together (default 16). */
  maxConcurrent?: number;
  /** How often the store is asked for work another replica or an earlier process left (default 1 s). */
  pollIntervalMs?: number;
  /**
   * How long a claim on a webhook lasts without news (default 30 s, at least twice the attempt timeout). A
   * replica that dies holding claims delays those webhooks by at most this much.
   */
  claimMs?: number;
  /** Retry delays: full jitter over min(maxMs, baseMs * 2^attempt) (defaults 1 s and 5 min). */
  backoff?: { baseMs?: number; maxMs?: number };
  /** Resolves webhook host names (default: the system resolver). */
  resolve?: WebhookResolver;
}

/** Options with every default applied and the secret parsed. */
export interface ResolvedPushOptions {
  readonly signingKey: Uint8Array | undefined;
  readonly allowPrivateTargets: boolean;
  readonly attemptTimeoutMs: number;
  readonly giveUpAfterMs: number;
  readonly maxConcurrent: number;
  readonly pollIntervalMs: number;
  readonly claimMs: number;
  readonly backoffBaseMs: number;
  readonly backoffMaxMs: number;
  readonly resolve: WebhookResolver;
}

export const DEFAULT_ATTEMPT_TIMEOUT_MS = 5_000;
export const DEFAULT_GIVE_UP_AFTER_MS = 24 * 3_600_000;

function positive(name: string, n: number): number {
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new RangeError(`push.${name} must be a positive whole number`);
  return n;
}

/**
 * Applies defaults.
 * @throws WebhookSecretError for a secret not in the `whsec_` form; RangeError for a bad number
 */
export function resolvePushOptions(o: PushDeliveryOptions = {}): ResolvedPushOptions {
  const attemptTimeoutMs = positive('attemptTimeoutMs', o.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS);
  const claimMs = positive('claimMs', o.claimMs ?? Math.max(30_000, 2 * attemptTimeoutMs));
  if (claimMs < 2 * attemptTimeoutMs)
    throw new RangeError('push.claimMs must be at least twice push.attemptTimeoutMs');
  const backoffBaseMs = positive('backoff.baseMs', o.backoff?.baseMs ?? 1_000);
  return {
    signingKey: o.signingSecret === undefined ? undefined : parseWebhookSecret(o.signingSecret),
    allowPrivateTargets: o.allowPrivateTargets === true,
    attemptTimeoutMs,
    giveUpAfterMs: positive('giveUpAfterMs', o.giveUpAfterMs ?? DEFAULT_GIVE_UP_AFTER_MS),
    maxConcurrent: positive('maxConcurrent', o.maxConcurrent ?? 16),
    pollIntervalMs: positive('pollIntervalMs', o.pollIntervalMs ?? 1_000),
    claimMs,
    backoffBaseMs,
    backoffMaxMs: Math.max(backoffBaseMs, positive('backoff.maxMs', o.backoff?.maxMs ?? 300_000)),
    resolve: o.resolve ?? systemResolver,
  };
}

/** The delay before retry number `attempt` (1 for the first retry): full jitter (AWS architecture blog, 2015). */
export function retryDelayMs(
  attempt: number,
  o: ResolvedPushOptions,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(o.backoffMaxMs, o.backoffBaseMs * 2 ** Math.min(attempt - 1, 30));
  return Math.floor(random() * ceiling);
}
