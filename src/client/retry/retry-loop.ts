/**
 * The retry loop of one call: attempt, classify, decide (retry-policy.ts), wait (backoff with full jitter, at
 * least `Retry-After`), within the attempt limit, the shared budget and the call's deadline. It also records
 * whether any attempt may have reached the peer, which turns a failed send into "outcome unknown"
 * (docs/semantics.md §7). With credentials, it asks for the headers of each attempt before the attempt starts
 * (so the attempt timeout never takes a slow credential for a peer that may have run the call), and resends once,
 * at once, with a fresh credential after a 401: the peer refused before running anything (ADR 0079).
 */
import { A2AError } from '../../protocol/errors.js';
import { DEFAULT_BACKOFF, retryDelay } from './backoff.js';
import type { AttemptScope, CallScope } from '../transport/call-scope.js';
import { RetryBudget } from './retry-budget.js';
import type { RetryObserver } from './retry-event.js';
import { answeredStatusOf, failureKindOf } from '../transport/failure-kind.js';
import { mayAnswerDifferently, mayRetry, retryAfterMsOf } from './retry-policy.js';
import type { CallSafety, RetryOptions } from './retry-policy.js';
import { TransportError } from '../transport/transport-error.js';

/** What the loop learnt about a call, for the caller's error reporting. */
export interface RetryState {
  /** Attempts started. */
  attempts: number;
  /** Whether any attempt may have reached the peer (ambiguous failure, or aborted in flight). */
  mayHaveReached: boolean;
}

/** A resolved retry configuration. */
export interface ResolvedRetry {
  readonly maxAttempts: number;
  readonly backoff: Required<NonNullable<RetryOptions['backoff']>>;
  readonly maxRetryAfterMs: number;
  readonly budget: RetryBudget;
  readonly random: () => number;
  readonly observer: RetryObserver | undefined;
}

/** Fills in defaults. `false` means one attempt and no retry. */
export function resolveRetry(options: RetryOptions | false | undefined): ResolvedRetry {
  const o = options === false ? { maxAttempts: 1 } : (options ?? {});
  return {
    maxAttempts: Math.max(1, Math.floor(o.maxAttempts ?? 4)),
    backoff: { ...DEFAULT_BACKOFF, ...o.backoff },
    maxRetryAfterMs: o.maxRetryAfterMs ?? 60_000,
    budget: o.budget ?? new RetryBudget(),
    random: o.random ?? Math.random,
    observer: o.onRetry,
  };
}

/** Hooks and limits of one loop. */
export interface RetryLoopOptions {
  readonly retry: ResolvedRetry;
  readonly safety: CallSafety;
  readonly call: CallScope;
  /** Per-attempt timeout in ms. */
  readonly attemptTimeoutMs: number | undefined;
  /** Told about every failure that will be retried (for failover and logging). */
  readonly onRetry?: (err: unknown, attempt: number) => void;
  /** Shared state, so a caller can read it after a failure. */
  readonly state?: RetryState;
  /** Keep the successful attempt's scope alive (a stream still reads under it); the caller disposes it. */
  readonly retainScope?: boolean;
  /** The call's credentials: the headers of each attempt, and a fresh credential after a 401 (ADR 0079). */
  readonly credentials?: AttemptCredentials | undefined;
}

/** What the loop asks of a call's credentials (`credentials/client-credentials.ts` gives them). */
export interface AttemptCredentials {
  /** Whether a refresh can bring another credential (a fixed one cannot, so its 401 is final at once). */
  readonly refreshable: boolean;
  /** The headers of the next attempt, `refresh` after a 401; `signal` fires on the caller's abort or deadline. */
  headers(refresh: boolean, signal: AbortSignal): Promise<Readonly<Record<string, string>>>;
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * Whether the peer refused the credential before running anything: UNAUTHENTICATED, which a2a-once and the
 * spec's error table answer with HTTP 401 ("the request has not been applied", RFC 9110 §15.5.2), raised before
 * anything runs (ADR 0079). For an unsafe call (an unkeyed send) only an answer that really came with HTTP 401
 * counts: the same error in a JSON-RPC 200 envelope could follow work a resend would do again.
 */
function credentialRefused(err: unknown, safety: CallSafety): boolean {
  if (!(err instanceof A2AError) || err.reason !== 'UNAUTHENTICATED') return false;
  return safety !== 'unsafe' || answeredStatusOf(err) === 401;
}

/**
 * The headers of the next attempt, under the call's signal and deadline only. Nothing has been sent yet, so a
 * deadline that passes here is `not-sent`, never the ambiguous timeout of an attempt.
 */
async function credentialHeadersOf(
  credentials: AttemptCredentials,
  refresh: boolean,
  call: CallScope,
): Promise<Readonly<Record<string, string>>> {
  const scope = call.attempt(undefined);
  try {
    return await credentials.headers(refresh, scope.signal);
  } catch (err) {
    if (scope.abortCause === 'caller' && call.callerAborted) throw call.callerReason;
    if (scope.abortCause === 'deadline')
      throw new TransportError(
        'not-sent',
        'DEADLINE_EXCEEDED',
        'the call deadline passed while the client was getting a credential; nothing was sent',
      );
    throw err;
  } finally {
    scope.dispose();
  }
}

/**
 * Runs `attempt` until it gives a definite answer or must stop. The last failure is rethrown; a refusal that
 * carried an A2A error (a 503 with IdempotencyCapacity, say) surfaces as that error.
 */
export async function withRetry<T>(
  attempt: (scope: AttemptScope, credentialHeaders: Readonly<Record<string, string>>) => Promise<T>,
  o: RetryLoopOptions,
): Promise<T> {
  const state = o.state ?? { attempts: 0, mayHaveReached: false };
  let refresh = false;
  let refreshed = false;
  for (let retry = 0; ; retry++) {
    if (o.call.callerAborted) throw o.call.callerReason;
    const headers =
      o.credentials === undefined ? NO_HEADERS : await credentialHeadersOf(o.credentials, refresh, o.call);
    refresh = false;
    const scope = o.call.attempt(o.attemptTimeoutMs);
    state.attempts++;
    let failure: unknown;
    try {
      const result = await attempt(scope, headers);
      o.retry.budget.onSuccess();
      if (o.retainScope !== true) scope.dispose();
      return result;
    } catch (err) {
      failure = scope.translate(err);
      scope.dispose();
    }
    if (
      o.credentials?.refreshable === true &&
      !refreshed &&
      !o.call.callerAborted &&
      credentialRefused(failure, o.safety)
    ) {
      // Nothing ran: resend at once with a fresh credential, once per call. Not a retry of a failure, so it
      // waits for no backoff, spends no budget and counts against no attempt limit (ADR 0079).
      refreshed = true;
      refresh = true;
      retry--;
      continue;
    }
    const kind = failureKindOf(failure);
    if (kind === 'ambiguous' || o.call.callerAborted) state.mayHaveReached = true;
    if (kind === 'definite' || o.call.callerAborted) {
      if (kind === 'definite') o.retry.budget.onSuccess();
      throw failure;
    }
    o.retry.budget.onFailure();
    const retryAfterMs = retryAfterMsOf(failure);
    const delay = retryDelay(retry, retryAfterMs, o.retry.backoff, o.retry.random);
    const stop =
      !mayRetry(kind, o.safety) ||
      !mayAnswerDifferently(failure) ||
      retry + 1 >= o.retry.maxAttempts ||
      !o.retry.budget.canRetry() ||
      (retryAfterMs !== undefined && retryAfterMs > o.retry.maxRetryAfterMs) ||
      delay >= o.call.remainingMs();
    if (stop) throw surface(failure);
    o.onRetry?.(failure, state.attempts);
    notifyRetry(o.retry, { attempt: state.attempts, delayMs: delay, retryAfterMs, error: failure });
    await o.call.sleep(delay);
  }
}

/**
 * Tells the caller's observer about a wait before another attempt (here, and before a stream re-attaches). What
 * the observer throws is its own failure and must not end a call that can still succeed.
 */
export function notifyRetry(
  retry: ResolvedRetry,
  event: { attempt: number; delayMs: number; retryAfterMs: number | undefined; error: unknown },
): void {
  if (retry.observer === undefined) return;
  try {
    retry.observer({ ...event, maxAttempts: retry.maxAttempts });
  } catch {
    // ignored: see RetryObserver
  }
}

/**
 * The error a caller sees when retries stop: the A2A error an HTTP status carried (the capacity refusal, a 503
 * server-busy error), which says more than the status, as long as it classifies alike (so the end of a send
 * reasons the same about either); else the failure itself.
 */
function surface(err: unknown): unknown {
  if (err instanceof TransportError && err.cause instanceof A2AError && failureKindOf(err.cause) === err.kind)
    return err.cause;
  return err;
}
