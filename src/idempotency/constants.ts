/**
 * The wire identifiers and bounds of the idempotency extension. They are the a2a-rust values byte for byte
 * (a2a-rust `idempotency.rs`), so Rust clients and servers interoperate with ours (docs/semantics.md §1).
 */

/** The extension URI, declared in `Message.extensions` next to a keyed send (a2a-rust's idempotency docs, docs/semantics.md §1). */
export const IDEMPOTENCY_EXTENSION_URI = 'https://a2a-rust.com/extensions/idempotency/v1';

/**
 * The `Message.metadata` entry that carries the key. `extensions` is a list of URIs and cannot carry a value,
 * which is why the key lives in metadata (a2a-rust's idempotency docs, "Attaching a key").
 */
export const IDEMPOTENCY_METADATA_KEY = 'a2a-rust.com/idempotency-key';

/** Shortest valid key: rejects counters and words such as `retry` (a2a-rust's behaviour). It is not an entropy check. */
export const MIN_KEY_LEN = 16;

/** Longest valid key, so a key cannot become an upload channel into store keys and logs. */
export const MAX_KEY_LEN = 255;
