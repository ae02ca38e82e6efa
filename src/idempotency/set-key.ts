/**
 * Attaching and removing a key (a2a-rust's idempotency docs, `set_key`, docs/semantics.md §1). Both return a new message and never
 * mutate their input, so a caller can keep the original to resend (a2a-rust's idempotency docs: a retry resends the identical
 * message). The copy is shallow: `parts` and other nested values are shared with the input.
 */
import type { JsonObject, Message } from '../protocol/model.js';
import { IDEMPOTENCY_EXTENSION_URI, IDEMPOTENCY_METADATA_KEY } from './constants.js';
import { KeyFormatError, validateKey } from './validate-key.js';

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The extension list with the URI exactly once: other URIs and their order kept, a duplicate URI dropped. */
function withUri(extensions: unknown): string[] {
  if (!Array.isArray(extensions)) return [IDEMPOTENCY_EXTENSION_URI];
  const out: string[] = [];
  let seen = false;
  for (const uri of extensions as unknown[]) {
    if (uri === IDEMPOTENCY_EXTENSION_URI) {
      if (seen) continue;
      seen = true;
    }
    out.push(uri as string);
  }
  if (!seen) out.push(IDEMPOTENCY_EXTENSION_URI);
  return out;
}

/**
 * Returns a copy of `message` carrying `key`: the key in `metadata` (other entries kept, a previous key
 * replaced, a non-object metadata value replaced) and the extension URI in `extensions` exactly once.
 *
 * @throws {KeyFormatError} before anything is built when `key` is invalid, so nothing is half-written.
 * @example const keyed = setKey(message, mintKey());
 */
export function setKey(message: Message, key: string): Message {
  const error = validateKey(key);
  if (error !== undefined) throw new KeyFormatError(error);
  const metadata = isObject(message.metadata) ? message.metadata : undefined;
  return {
    ...message,
    metadata: { ...metadata, [IDEMPOTENCY_METADATA_KEY]: key },
    extensions: withUri(message.extensions),
  };
}

/**
 * Returns a copy of `message` without the key: the metadata entry removed (and `metadata` itself when that left
 * it empty) and every occurrence of the URI removed (and `extensions` itself when that left it empty).
 * Fields that were already empty are kept as they were.
 */
export function withoutKey(message: Message): Message {
  const copy: Message = { ...message };
  const metadata = message.metadata;
  if (isObject(metadata) && Object.prototype.hasOwnProperty.call(metadata, IDEMPOTENCY_METADATA_KEY)) {
    const { [IDEMPOTENCY_METADATA_KEY]: _removed, ...rest } = metadata;
    if (Object.keys(rest).length === 0) delete copy.metadata;
    else copy.metadata = rest;
  }
  const extensions: unknown = message.extensions;
  if (Array.isArray(extensions) && extensions.includes(IDEMPOTENCY_EXTENSION_URI)) {
    const rest = (extensions as string[]).filter((uri) => uri !== IDEMPOTENCY_EXTENSION_URI);
    if (rest.length === 0) delete copy.extensions;
    else copy.extensions = rest;
  }
  return copy;
}
