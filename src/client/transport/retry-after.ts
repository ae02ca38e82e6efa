/**
 * `Retry-After` (RFC 9110 §10.2.3): either delay-seconds or an HTTP-date. A2A lets servers send it on
 * system errors (A2A v1.0, A2A §3.3.2); a2a-once's server sends it with HTTP 503 when the key index is full
 * (docs/semantics.md §2).
 */

/**
 * Milliseconds to wait, from a `Retry-After` value, or undefined when absent or unreadable. A date in the past
 * means "now" (0). `now` is injectable for tests.
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) ? seconds * 1000 : undefined;
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

/** Whole seconds for `A2AError.retryAfterSeconds`. */
export function secondsOf(ms: number | undefined): number | undefined {
  return ms === undefined ? undefined : Math.ceil(ms / 1000);
}
