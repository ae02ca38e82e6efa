/**
 * A key record whose message digest is computed the first time something reads it, not when the record is
 * built: SHA-256 of canonical JSON is the costliest part of a keyed send, and a caller that reads a key (a
 * conflicting retry, a continuation's early check) often needs only its message id.
 *
 * A class rather than an object literal with `get digest()`: a literal's getter is a new closure per object,
 * which gives every record its own hidden class (one Map and DescriptorArray each) and turns every read of a key
 * record megamorphic (ADR 0023). Here all records share one shape and the getter lives on the prototype, so
 * `{ ...record }` does NOT copy `digest`.
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
    digest: string | (() => string),
  ) {
    if (typeof digest === 'string') this.#digest = digest;
    else this.#compute = digest;
  }

  /** The claiming message's digest, computed on first read (it is the costliest part of a keyed send). */
  get digest(): string {
    if (this.#digest === undefined) {
      this.#digest = this.#compute!();
      // What the thunk holds on to (the message) can go now.
      this.#compute = undefined;
    }
    return this.#digest;
  }

  /** Whether the digest is known yet (given, or computed by a read). */
  get digestKnown(): boolean {
    return this.#digest !== undefined;
  }
}
