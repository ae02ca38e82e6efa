/**
 * Wire timestamps for epoch milliseconds, with a one-entry cache: a busy server stamps several events in the
 * same millisecond, and `Date#toISOString` is one of the costlier calls on the send path.
 */
let cachedMs = Number.NaN;
let cachedIso = '';

/** ISO-8601 UTC with milliseconds, e.g. `2026-11-29T10:00:00.000Z`. */
export function isoAt(ms: number): string {
  if (ms !== cachedMs) {
    cachedIso = new Date(ms).toISOString();
    cachedMs = ms;
  }
  return cachedIso;
}
