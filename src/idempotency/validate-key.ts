/**
 * Key validation, with the a2a-rust error kinds (a2a-rust's idempotency docs, "Choosing a key", docs/semantics.md §1).
 */
import { MAX_KEY_LEN, MIN_KEY_LEN } from './constants.js';

/**
 * Why a key was refused. `NOT_A_STRING` is for a metadata entry that is present but not a JSON string:
 * it is refused, never treated as absent (docs/semantics.md §1).
 */
export type KeyError = 'TOO_SHORT' | 'TOO_LONG' | 'INVALID_CHARACTER' | 'NOT_A_STRING';

/** `ALLOWED[c]` is 1 for the ASCII code units a key may contain: letters, digits, `-` `_` `.` `:`. */
const ALLOWED = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  ALLOWED[c] = /[A-Za-z0-9\-_.:]/.test(ch) ? 1 : 0;
}

/**
 * Checks a key: length first, then the character set (the order a2a-rust's `validate_key` uses).
 *
 * Length is counted in UTF-8 bytes, as a2a-rust counts it, so both SDKs give the same error kind for the same
 * string. For every string that can pass, bytes and characters coincide (the set is ASCII only). The set
 * excludes space, `/`, CR/LF, NUL and non-ASCII because a key reaches store keys and log lines, and a newline
 * there is where log injection starts (a2a-rust's behaviour).
 *
 * @returns `undefined` when the key is valid, otherwise why it is not.
 * @example validateKey('retry') // 'TOO_SHORT'
 */
export function validateKey(key: string): KeyError | undefined {
  // Callers from plain JavaScript (or a cast wire value) can hand us anything.
  if (typeof key !== 'string') return 'NOT_A_STRING';
  const units = key.length;
  // UTF-8 never has fewer bytes than UTF-16 has code units, so this is exact without counting.
  if (units > MAX_KEY_LEN) return 'TOO_LONG';
  let bytes = 0;
  let invalid = false;
  for (let i = 0; i < units; i++) {
    const c = key.charCodeAt(i);
    if (c < 0x80) {
      bytes += 1;
      if (ALLOWED[c] !== 1) invalid = true;
    } else {
      invalid = true;
      // A surrogate half is half of a 4-byte sequence; other BMP code units take 2 or 3 bytes.
      bytes += c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdfff ? 2 : 3;
    }
  }
  if (bytes < MIN_KEY_LEN) return 'TOO_SHORT';
  if (bytes > MAX_KEY_LEN) return 'TOO_LONG';
  return invalid ? 'INVALID_CHARACTER' : undefined;
}

/**
 * A sentence saying what is wrong with a key and what a valid one looks like, for error messages.
 * It never includes the key itself: a key is a handle to a task (docs/semantics.md §1, "Keys in logs").
 */
export function describeKeyError(error: KeyError): string {
  switch (error) {
    case 'TOO_SHORT':
      return `The idempotency key is too short: it must be at least ${MIN_KEY_LEN} characters.`;
    case 'TOO_LONG':
      return `The idempotency key is too long: it must be at most ${MAX_KEY_LEN} characters.`;
    case 'INVALID_CHARACTER':
      return 'The idempotency key contains a character outside the allowed set: ASCII letters, digits, "-", "_", "." and ":".';
    case 'NOT_A_STRING':
      return 'The idempotency key metadata entry is present but is not a string.';
  }
}

const BRAND = Symbol.for('a2a-once.KeyFormatError');

/**
 * Thrown by the throwing key APIs (`keyOf`, `setKey`) for a malformed key. A local error: the server maps a
 * malformed key to its wire error (`IDEMPOTENCY_KEY_INVALID`, -32602 / 400) itself (docs/semantics.md §1).
 */
export class KeyFormatError extends Error {
  /** Why the key was refused. */
  readonly keyError: KeyError;

  constructor(keyError: KeyError) {
    super(describeKeyError(keyError));
    this.name = 'KeyFormatError';
    this.keyError = keyError;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** Brand check, so `instanceof` survives duplicated module copies (CONVENTIONS: bundling breaks instanceof). */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && BRAND in value;
  }
}
