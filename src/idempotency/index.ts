/**
 * The idempotency extension (a2a-rust `idempotency/v1`, wire-compatible; docs/semantics.md §1–§2): constants, key
 * validation, reading and attaching keys, minting, the message digest, and the log-safe key hash.
 * `digest.js` and `key-hash.js` use `node:crypto`; the rest runs on any runtime with Web Crypto.
 */
export {
  IDEMPOTENCY_EXTENSION_URI,
  IDEMPOTENCY_METADATA_KEY,
  MAX_KEY_LEN,
  MIN_KEY_LEN,
} from './constants.js';
export { KeyFormatError, describeKeyError, validateKey } from './validate-key.js';
export type { KeyError } from './validate-key.js';
export { keyOf, readKey } from './key-of.js';
export type { KeyReading } from './key-of.js';
export { setKey, withoutKey } from './set-key.js';
export { declaresExtension } from './declares-extension.js';
export { MAX_MINT_CLOCK_SKEW_MS, MIN_MINT_TIME_MS, mintKey, mintTimeOf } from './mint-key.js';
export { canonicalJson, messageDigest } from './digest.js';
export { keyHash } from './key-hash.js';
export { redactKeys, redactedKey } from './redact-keys.js';
