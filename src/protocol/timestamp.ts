/**
 * Timestamps on the wire are ISO-8601 UTC with milliseconds, ending in `Z` (A2A v1.0).
 */

/** Now, as a wire timestamp. */
export function nowTimestamp(): string {
  return new Date().toISOString();
}

/** Any instant, as a wire timestamp. */
export function toTimestamp(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * Normalises a timestamp read from the wire (any RFC 3339 form, any offset) to the canonical form, or returns
 * undefined when it is not a timestamp.
 */
export function normalizeTimestamp(value: string): string | undefined {
  // RFC 3339: a date, `T`, a time, optional fraction, and `Z` or an offset.
  if (!/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(value))
    return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}
