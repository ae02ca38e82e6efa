/**
 * A copy of a task, message or answer that is safe to log or print: every idempotency key in it replaced by a
 * stand-in naming the key's hash (docs/semantics.md §1). A task's history keeps the user messages it was sent,
 * and a keyed message carries its key in `metadata`, so a task read back (GetTask, ListTasks, a send's answer,
 * a stream's events) holds the caller's own key in clear: a handle to that task for anyone who reads the log.
 */
import { IDEMPOTENCY_METADATA_KEY } from './constants.js';
import { keyHash } from './key-hash.js';

/**
 * What a redacted key reads as: `[redacted #<keyHash>]`. The spaces and brackets make it an invalid key
 * (docs/semantics.md §1), so a stand-in copied back into a send is refused rather than used as a new key.
 */
export function redactedKey(key: string): string {
  return `[redacted #${keyHash(key)}]`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Returns a copy of `value` (a Task, Message, SendMessageResponse, StreamResponse, ListTasksResponse, or any
 * JSON holding them) in which each `metadata["a2a-rust.com/idempotency-key"]` string is `[redacted #<hash>]`.
 * Everything else is kept as it is; the input is not changed. Arrays and plain objects are copied, other values
 * (strings, numbers, class instances) are shared. The result is for reading only: a redacted message is not the
 * message that was sent, and resending it would be refused.
 *
 * @example logger.info({ task: redactKeys(task) }, 'task finished')
 */
export function redactKeys<T>(value: T): T {
  return redact(value) as T;
}

function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (!isPlainObject(value)) return value;
  // fromEntries defines own properties, so an entry named `__proto__` (JSON.parse makes them) stays data.
  return Object.fromEntries(
    Object.entries(value).map(([name, v]) => [name, name === 'metadata' ? redactMetadata(v) : redact(v)]),
  );
}

function redactMetadata(metadata: unknown): unknown {
  if (!isPlainObject(metadata)) return redact(metadata);
  const out = redact(metadata) as Record<string, unknown>;
  const key = metadata[IDEMPOTENCY_METADATA_KEY];
  if (typeof key === 'string') out[IDEMPOTENCY_METADATA_KEY] = redactedKey(key);
  return out;
}
