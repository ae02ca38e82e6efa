/**
 * Which failures may be retried (docs/semantics.md §7). The decision depends on the failure's kind and on the call's
 * safety: a read is always safe to repeat; a keyed send is safe only when the peer honours keys; anything else
 * is retried only when it certainly did not run (not sent, or refused up front).
 */
import { A2AError } from '../../protocol/errors.js';
import type { BackoffOptions } from './backoff.js';
import type { RetryBudget } from './retry-budget.js';
import type { RetryObserver } from './retry-event.js';
import { TransportError } from '../transport/transport-error.js';
import type { FailureKind } from '../transport/transport-error.js';

/**
 * How safe it is to repeat a call:
 * - `read`: GetTask, ListTasks, CancelTask, SubscribeToTask, the push-config reads and delete, the cards
 *   (A2A §3.3.1: naturally idempotent; cancel and delete are idempotent too).
 * - `keyed-send`: a send with a valid key to a peer that honours keys: a repeat is a replay.
 * - `unsafe`: an unkeyed send, a keyed send to a peer not known to honour keys, CreateTaskPushNotificationConfig.
 */
export type CallSafety = 'read' | 'keyed-send' | 'unsafe';

/** Retry settings. */
export interface RetryOptions {
  /** Attempts per call, the first included. Default 4. `1` disables retries. */
  readonly maxAttempts?: number;
  /** Backoff windows. */
  readonly backoff?: BackoffOptions;
  /**
   * The longest `Retry-After` the client will wait, in ms (default 60,000). A longer one ends the call with the
   * refusal: waiting less than the peer asked would only earn another refusal.
   */
  readonly maxRetryAfterMs?: number;
  /** A budget shared by all calls of a client; one is made per client when omitted. */
  readonly budget?: RetryBudget;
  /** Random source in `[0, 1)`, for tests. */
  readonly random?: () => number;
  /** Told before each wait between attempts: which attempt failed, why, and how long the wait is. */
  readonly onRetry?: RetryObserver;
}

/** Whether a failure of this kind may be retried for a call of this safety. */
export function mayRetry(kind: FailureKind | 'definite', safety: CallSafety): boolean {
  switch (kind) {
    case 'not-sent':
    case 'refused':
      return true;
    case 'ambiguous':
      return safety !== 'unsafe';
    case 'definite':
      return false;
  }
}

/**
 * Whether repeating the call could bring a different answer. An answer past the read limit would come back as
 * large: a read returns the same resource, and a keyed send's replay the same task, grown if anything (ADR 0069).
 */
export function mayAnswerDifferently(err: unknown): boolean {
  return !(err instanceof TransportError && err.code === 'RESPONSE_TOO_LARGE');
}

/** The `Retry-After` an error carries, in ms. */
export function retryAfterMsOf(err: unknown): number | undefined {
  if (err instanceof TransportError) return err.retryAfterMs;
  if (err instanceof A2AError && err.retryAfterSeconds !== undefined) return err.retryAfterSeconds * 1000;
  return undefined;
}
