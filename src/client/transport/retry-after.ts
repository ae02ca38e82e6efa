/**
 * `Retry-After` (RFC 9110 §10.2.3): either delay-seconds or an HTTP-date. A2A lets servers send it on
 * system errors (A2A v1.0, A2A §3.3.2); a2a-once's server sends it with HTTP 503 when the key index is full
 * (docs/semantics.md §2).
 */

/**
 * A number of seconds, whole or not: delay-seconds (RFC 9110 allows digits only) read leniently, so that `1.5`
 * and `15e-1` say what a reader would take them to say. No sign: a negative wait is not a wait.
 */
const SECONDS = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Milliseconds to wait, from a `Retry-After` value, or undefined when absent or unreadable (ADR 0071):
 * - a number of seconds, fractions included (`1.5` is 1,500 ms), rounded up to a whole millisecond;
 * - a number too large to count in ms exactly (`1e400`, 400 digits) is `Infinity`: a wait longer than any the
 *   client takes, so the call ends at once, as any wait past `maxRetryAfterMs` or the call's deadline does;
 * - an HTTP-date is the time until it; a date in the past means "now" (0);
 * - anything else (negative, garbage) is absent.
 * `now` is injectable for tests.
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (SECONDS.test(text)) {
    const ms = Math.ceil(Number(text) * 1000);
    return Number.isSafeInteger(ms) ? ms : Infinity;
  }
  // HTTP-date: IMF-fixdate or one of the two obsolete forms, all of which start with a day name.
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** `Retry-After` of a response, in ms. */
export function retryAfterOf(res: Response): number | undefined {
  return parseRetryAfter(res.headers.get('retry-after'));
}

/** Whole seconds for `A2AError.retryAfterSeconds` (`Infinity` stays `Infinity`: too long to wait). */
export function secondsOf(ms: number | undefined): number | undefined {
  return ms === undefined ? undefined : Math.ceil(ms / 1000);
}
