/**
 * Exponential backoff with full jitter (docs/semantics.md §7): the n-th retry waits a uniformly random time in
 * `[0, min(cap, base * multiplier^n))`. Full jitter (rather than a2a-rust's `[0.5x, 1x)`) spreads a crowd of
 * clients that failed together across the whole window, so their retries do not arrive in a second wave.
 */

/** Backoff settings. */
export interface BackoffOptions {
  /** Upper bound of the first retry's window, in ms. Default 200. */
  readonly initialMs?: number;
  /** Growth of the window per retry. Default 2. */
  readonly multiplier?: number;
  /** The window never grows past this, in ms. Default 10,000. */
  readonly maxMs?: number;
}

/** The defaults of `BackoffOptions`. */
export const DEFAULT_BACKOFF: Required<BackoffOptions> = { initialMs: 200, multiplier: 2, maxMs: 10_000 };

/**
 * The upper bound of the window for retry number `retry` (0 for the first retry). Overflow and NaN clamp to
 * the cap, so a long-lived retry loop never computes `Infinity`.
 */
export function backoffCeiling(retry: number, options: BackoffOptions = {}): number {
  const { initialMs, multiplier, maxMs } = { ...DEFAULT_BACKOFF, ...options };
  const raw = initialMs * Math.pow(multiplier, Math.max(0, retry));
  if (!Number.isFinite(raw) || Number.isNaN(raw)) return maxMs;
  return Math.max(0, Math.min(maxMs, raw));
}

/**
 * The delay before retry number `retry`: full jitter over `backoffCeiling`. `random` returns a number in
 * `[0, 1)` (injectable so tests can pin it).
 */
export function backoffDelay(
  retry: number,
  options: BackoffOptions = {},
  random: () => number = Math.random,
): number {
  const r = random();
  const unit = Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0;
  return Math.floor(unit * backoffCeiling(retry, options));
}

/**
 * The delay actually used: the jittered backoff, but never less than a server's `Retry-After` (a refusal up
 * front names the earliest time a retry can succeed; retrying sooner only earns another refusal).
 */
export function retryDelay(
  retry: number,
  retryAfterMs: number | undefined,
  options: BackoffOptions = {},
  random: () => number = Math.random,
): number {
  const jittered = backoffDelay(retry, options, random);
  return retryAfterMs === undefined ? jittered : Math.max(jittered, retryAfterMs);
}
