/**
 * A downstream service for the step tests, the kind an agent calls from `ctx.step`: a signing API that
 * deduplicates on the idempotency key it is given, like a payment or signing provider does. It refuses a
 * malformed key with the rules of docs/semantics.md §1, records one effect per key, and answers a repeated key
 * with the first answer.
 */
import { validateKey } from '../../../src/idempotency/index.js';

/** One signature the service produced. */
export interface Signature {
  readonly signatureId: string;
  readonly document: string;
}

export class SigningService {
  /** Effects, one per key: what a second call with the key is answered with. */
  readonly effects = new Map<string, Signature>();
  /** Every call, including the deduplicated ones. */
  calls = 0;

  sign(idempotencyKey: string, document: string): Signature {
    this.calls++;
    const bad = validateKey(idempotencyKey);
    if (bad) throw new Error(`signing service: bad idempotency key (${bad})`);
    const earlier = this.effects.get(idempotencyKey);
    if (earlier) return earlier;
    const signature = { signatureId: `sig-${this.effects.size + 1}`, document };
    this.effects.set(idempotencyKey, signature);
    return signature;
  }
}
