/**
 * What the retry loop tells an observer before it waits: which attempt failed and why, and how long it waits
 * before the next one. A command-line tool prints it (`a2a-once send` on a terminal), a service logs or counts
 * it; the loop itself stays silent, since a library must not write to the console.
 */

/** One failed attempt that will be retried. */
export interface RetryEvent {
  /** The attempt that failed, counting from 1. */
  readonly attempt: number;
  /** Attempts the call may make in all, the first included. */
  readonly maxAttempts: number;
  /** How long the loop waits before the next attempt, in ms (backoff, at least any `Retry-After`). */
  readonly delayMs: number;
  /** The wait the peer asked for (`Retry-After`), in ms, when it asked. */
  readonly retryAfterMs: number | undefined;
  /** Why the attempt failed (`describeError` from `a2a-once/client` turns it into one line). */
  readonly error: unknown;
}

/** Told about every retry; whatever it throws is ignored, so an observer cannot break a call. */
export type RetryObserver = (event: RetryEvent) => void;
