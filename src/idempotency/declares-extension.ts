/**
 * Whether a message declares the idempotency extension (a2a-rust's idempotency docs, `declares_extension`).
 */
import type { Message } from '../protocol/model.js';
import { IDEMPOTENCY_EXTENSION_URI } from './constants.js';

/**
 * True when `message.extensions` lists the idempotency URI. Informational only: a key without the URI is
 * still honoured, and the URI without a key is an ordinary unkeyed send (docs/semantics.md §1).
 */
export function declaresExtension(message: Message): boolean {
  const extensions: unknown = message.extensions;
  return Array.isArray(extensions) && extensions.includes(IDEMPOTENCY_EXTENSION_URI);
}
