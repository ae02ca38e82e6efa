/**
 * Reading the key off a message (a2a-rust's idempotency docs, `key_of`, docs/semantics.md §1).
 */
import type { Message } from '../protocol/model.js';
import { IDEMPOTENCY_METADATA_KEY } from './constants.js';
import { KeyFormatError, validateKey } from './validate-key.js';
import type { KeyError } from './validate-key.js';

/** What `readKey` found: a valid key, an error, or neither (an unkeyed message). */
export interface KeyReading {
  readonly key?: string;
  readonly error?: KeyError;
}

// Shared frozen results: the unkeyed and refused cases allocate nothing on the server's hot path.
const ABSENT: KeyReading = Object.freeze({});
const REFUSED: Readonly<Record<KeyError, KeyReading>> = Object.freeze({
  TOO_SHORT: Object.freeze({ error: 'TOO_SHORT' }),
  TOO_LONG: Object.freeze({ error: 'TOO_LONG' }),
  INVALID_CHARACTER: Object.freeze({ error: 'INVALID_CHARACTER' }),
  NOT_A_STRING: Object.freeze({ error: 'NOT_A_STRING' }),
});

/**
 * Reads the key without throwing. `{}` when the message is unkeyed (no metadata, no entry, or an entry whose
 * value is `undefined`, which JSON cannot carry); `{ error }` when the entry is present but malformed, and
 * `null`, numbers, booleans, objects and arrays are `NOT_A_STRING`, never absent, since treating them as absent
 * would silently run a send the caller thought was deduplicated (a2a-rust `KeyError::NotAString`).
 * The key is honoured whether or not the extension URI is declared (docs/semantics.md §1).
 * The returned object is shared and frozen unless it carries a key.
 */
export function readKey(message: Message): KeyReading {
  const metadata: unknown = message.metadata;
  // A non-object metadata value (possible only from an unchecked wire value) has no entries.
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return ABSENT;
  if (!Object.prototype.hasOwnProperty.call(metadata, IDEMPOTENCY_METADATA_KEY)) return ABSENT;
  const value: unknown = (metadata as Record<string, unknown>)[IDEMPOTENCY_METADATA_KEY];
  if (value === undefined) return ABSENT;
  if (typeof value !== 'string') return REFUSED.NOT_A_STRING;
  const error = validateKey(value);
  return error === undefined ? { key: value } : REFUSED[error];
}

/**
 * The message's idempotency key, or `undefined` for an unkeyed message.
 *
 * @throws {KeyFormatError} when the entry is present but not a valid key string (see `readKey`).
 * @example keyOf(setKey(message, mintKey())) // the minted key
 */
export function keyOf(message: Message): string | undefined {
  const reading = readKey(message);
  if (reading.error !== undefined) throw new KeyFormatError(reading.error);
  return reading.key;
}
