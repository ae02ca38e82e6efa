/**
 * The messageId of a keyed send that was given none: derived from the key, so running the same send again (a
 * script, `a2a-once send --key K` typed twice) resends the identical message and the peer replays its task
 * instead of refusing a held key with a new messageId (docs/semantics.md §2). ADR 0043.
 *
 * The id is logged and stored, the key must never be (docs/semantics.md §1), so the id is a one-way digest of the
 * key: SHA-256 over a domain-separated input, so it matches no other hash of the key (the log-safe `keyHash` is
 * a plain SHA-256 prefix), cut to a UUID (RFC 9562 version 8, "custom") so it looks like every other messageId.
 */
import { sha256Hex } from '../../idempotency/sha256.js';

/** Tags the hash input: a digest made for this purpose is never equal to one made for another. */
const DOMAIN = 'a2a-once/v1/message-id-from-idempotency-key\u0000';

/**
 * The messageId a keyed send without one gets: the same for the same key, in any process, and not the key.
 *
 * @example messageIdForKey('order-1234-payment-0001') // a UUID such as 'xxxxxxxx-xxxx-8xxx-[89ab]xxx-xxxxxxxxxxxx'
 */
export function messageIdForKey(key: string): string {
  const hex = sha256Hex(DOMAIN + key);
  // Version 8 in the 13th hex digit, variant 10xx in the 17th: the layout of RFC 9562 §5.8.
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return (
    `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-` +
    `${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`
  );
}
