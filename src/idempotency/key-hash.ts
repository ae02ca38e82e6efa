/**
 * A printable stand-in for a key. Keys never appear in clear in logs, traces, metrics or webhooks: a key is a
 * handle to a task, and anyone who can present it reaches that task (a2a-rust's idempotency docs, docs/semantics.md §1).
 */
import { sha256Hex } from './sha256.js';

/**
 * The first 12 hex characters (48 bits) of the key's SHA-256: stable across processes, enough to correlate
 * log lines, and not the key. Do not use it as a store key (collisions are possible at scale).
 *
 * @example logger.info({ key: keyHash(key) }, 'replayed keyed send')
 */
export function keyHash(key: string): string {
  return sha256Hex(key).slice(0, 12);
}
