/**
 * Push delivery state in the store (docs/semantics.md §5, ADR 0045). The event log is the outbox: every event is
 * stored with its per-task sequence number in the transaction that commits it, and each (task, push config) keeps
 * a durable cursor saying how far delivery got. A commit that appends events also records the task's new seq on
 * the task's cursors, in the same transaction, so "this webhook has work" is one indexed comparison
 * (`taskSeq > deliveredSeq`) that survives any crash.
 *
 * A dispatcher claims due cursors for a short lease (so two replicas never deliver one webhook at once), checks
 * and extends the claim right before it sends the event after `deliveredSeq` (`sending`), and records the outcome
 * under its claim. The holder names one claim, not one dispatcher (ADR 0056): a dispatcher whose claim lapsed and
 * was taken over, by another replica or by itself, is fenced out. Every outcome is conditional on the claim and on
 * the event being the cursor's next one, so a stale dispatcher changes nothing; and every outcome may be recorded
 * again (its answer was lost): a repeat of one that landed is answered `true` and changes nothing.
 */
import type { TaskPushNotificationConfig } from '../protocol/requests.js';
import type { Scope } from './scope.js';
import { StoreError } from './sql/store-error.js';
import { checkLimit, checkOwnerAndTtl, textKeyProblem } from './sql/worker-lease.js';

/** The last time delivery gave events up (they will never be sent). */
export interface PushGiveUp {
  /** The first and last sequence numbers given up. */
  readonly fromSeq: number;
  readonly throughSeq: number;
  /** Epoch ms (store clock). */
  readonly at: number;
  /** Why: `rejected` (the receiver answered a status that is not retried), `expired` (failing for too long), ... */
  readonly reason: string;
}

/** Where delivery to one webhook of one task stands. */
export interface PushDeliveryState {
  readonly configId: string;
  /** Every event with `seq <= deliveredSeq` was acknowledged (2xx) or given up. */
  readonly deliveredSeq: number;
  /** The task's event seq as of its last commit: `taskSeq > deliveredSeq` means there is work. */
  readonly taskSeq: number;
  /** Failed attempts of the event `deliveredSeq + 1` so far (0 after each success or give-up). */
  readonly attempts: number;
  /** Epoch ms before which the next attempt is not made. */
  readonly nextAttemptAt: number;
  /** When the current run of failures started (the first failed attempt of the event now at the head). */
  readonly failingSince?: number;
  /**
   * What the last failed attempt or give-up met (a status or an error code; never a credential or a URL path).
   * Kept after later successes, so a give-up's cause stays visible; `attempts` says whether it is current.
   */
  readonly lastError?: string;
  /** Events given up so far, over the config's life. */
  readonly givenUpEvents: number;
  /** The last give-up, kept so the failure stays visible after delivery moved on. */
  readonly lastGiveUp?: PushGiveUp;
}

/** A claimed cursor: the webhook, where it stands, and whose task it is. */
export interface PushDelivery extends PushDeliveryState {
  readonly scope: Scope;
  readonly taskId: string;
  readonly config: TaskPushNotificationConfig;
}

/** What a delivery attempt (or a decision not to attempt) came to; recorded under the claim. */
export type PushOutcome =
  /**
   * About to send event `seq`: true only if the claim is still this holder's and `seq` is the cursor's next event;
   * the claim is then held `claimMs` more. A dispatcher sends only after this answered true (ADR 0056).
   */
  | { readonly kind: 'sending'; readonly seq: number; readonly claimMs: number }
  /** The receiver acknowledged event `seq` (2xx): the cursor moves to it and the claim is held `claimMs` more. */
  | { readonly kind: 'delivered'; readonly seq: number; readonly claimMs: number }
  /** Event `seq` failed and will be tried again from `retryAt`; the claim is released. */
  | { readonly kind: 'failed'; readonly seq: number; readonly error: string; readonly retryAt: number }
  /**
   * Event `seq` is given up: alone (`through: 'event'`, e.g. the receiver refused it), or with every event
   * committed so far (`through: 'backlog'`, e.g. the receiver failed for longer than the give-up age). The
   * claim is released and later events are delivered as usual.
   */
  | {
      readonly kind: 'given-up';
      readonly seq: number;
      readonly through: 'event' | 'backlog';
      readonly reason: string;
      readonly error: string;
    }
  /** Nothing more to do now: the claim is released. */
  | { readonly kind: 'released' };

/** Longest error text kept on a cursor: it is a label for an operator, not a log. */
export const MAX_PUSH_ERROR_LENGTH = 500;

/** Throws `BAD_ARGUMENT` for a claim no store can honour. */
export function checkPushClaim(method: string, holder: string, claimMs: number, limit: number): void {
  checkOwnerAndTtl(method, holder, claimMs);
  checkLimit(method, limit);
}

/** Throws `BAD_ARGUMENT` for an outcome no store can honour; returns its error text cut to size. */
export function checkPushOutcome(method: string, holder: string, outcome: PushOutcome): string | undefined {
  const bad = textKeyProblem(holder, 512);
  if (bad) throw new StoreError('BAD_ARGUMENT', `${method}: the holder ${bad}`);
  if (outcome.kind === 'released') return undefined;
  if (!Number.isSafeInteger(outcome.seq) || outcome.seq < 1)
    throw new StoreError(
      'BAD_ARGUMENT',
      `${method}: seq must be a positive integer, got ${String(outcome.seq)}`,
    );
  if (outcome.kind === 'delivered' || outcome.kind === 'sending') {
    checkOwnerAndTtl(method, holder, outcome.claimMs);
    return undefined;
  }
  if (outcome.kind === 'failed' && !Number.isSafeInteger(outcome.retryAt))
    throw new StoreError('BAD_ARGUMENT', `${method}: retryAt must be an epoch-ms integer`);
  return outcome.error.slice(0, MAX_PUSH_ERROR_LENGTH);
}
