/**
 * RFC 8785 (JCS) canonical JSON, through the `canonicalize` library (ADR 0053): property names sorted by UTF-16
 * code units, strings as ECMAScript `JSON.stringify` writes them (literal UTF-8, only `"`, `\` and C0 controls
 * escaped), numbers as ECMAScript `Number.prototype.toString`. A value with no canonical form (a lone surrogate,
 * NaN, an infinity) is refused with a `CanonicalFormError` rather than written in some other form.
 */
import canonicalize from 'canonicalize';

/** A value that RFC 8785 cannot write (RFC 8785 §3.2.2). */
export class CanonicalFormError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CanonicalFormError';
  }
}

/** The RFC 8785 canonical JSON text of `value`. */
export function canonicalJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = canonicalize(value);
  } catch (err) {
    throw new CanonicalFormError(`no RFC 8785 canonical form: ${(err as Error).message}`, { cause: err });
  }
  if (text === undefined) throw new CanonicalFormError('no RFC 8785 canonical form: not a JSON value');
  return text;
}
