/**
 * `Retry-After` (RFC 9110 §10.2.3): either delay-seconds or an HTTP-date. A2A lets servers send it on
 * system errors (digest §4.1, A2A §3.3.2); a2a-once's server sends it with HTTP 503 when the key index is full
 * (SEMANTICS §2).
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
