/**
 * A live key whose message digest is computed the first time something reads it (a retry presenting the key),
 * not at claim time: SHA-256 of canonical JSON is the costliest part of a keyed send, and most keys are never
 * presented twice.
 *
 * A class rather than an object literal with `get digest()`: a literal's getter is a new closure per object,
 * which gives every record its own hidden class (one Map and DescriptorArray per claim) and turns every read of
 * a key record megamorphic. Here all records share one shape and the getter lives on the prototype, so
 * `{ ...record }` does NOT copy `digest`: build copies with `keyRecordWith()`.
 */
import type { KeyRecord } from '../records.js';

export class LazyDigestKeyRecord implements KeyRecord {
  readonly tombstone = false;
  #digest: string | undefined;
  #compute: (() => string) | undefined;

  constructor(
    readonly key: string,
    readonly messageId: string,
    readonly taskId: string,
    readonly createdAt: number,
    readonly expiresAt: number,
    compute: () => string,
  ) {
    this.#compute = compute;
  }

  get digest(): string {
    if (this.#digest === undefined) {
      this.#digest = this.#compute!();
      // What the thunk holds on to (the message) can go now.
      this.#compute = undefined;
    }
    return this.#digest;
  }
}

/** A plain copy of `k` with `changes` applied; reads `digest` (computing it if it was deferred). */
export function keyRecordWith(k: KeyRecord, changes: Partial<KeyRecord>): KeyRecord {
  return {
    key: k.key,
    messageId: k.messageId,
    digest: k.digest,
    taskId: k.taskId,
    createdAt: k.createdAt,
    expiresAt: k.expiresAt,
    tombstone: k.tombstone,
    ...changes,
  };
}
