/**
 * Tokens kept as SHA-256 digests and compared in constant time (ADR 0075): the server never holds a configured
 * token in clear after start-up, and how long a lookup takes does not depend on how much of a guess was right.
 */
import { timingSafeEqual } from 'node:crypto';
import { sha256Bytes } from '../../idempotency/sha256.js';

/**
 * The SHA-256 digest of a token (typed as bytes: the public types name no node type, ADR 0060). One-shot, as the
 * idempotency digests are: a `Hash` object per request cost bearer-authenticated sends about 4% of the server's CPU.
 */
export function tokenDigest(token: string): Uint8Array {
  return sha256Bytes(token);
}

/**
 * A stable, non-secret name for a token (`token:` and the first 8 hex digits of its SHA-256): the principal a
 * token gets when none is configured, safe in logs and task listings. 32 bits say which token, not what it is.
 */
export function tokenPrincipalName(token: string): string {
  return digestPrincipalName(tokenDigest(token));
}

/** The principal name of a token known only by its digest (see `tokenPrincipalName`). */
export function digestPrincipalName(digest: Uint8Array): string {
  return `token:${Buffer.from(digest).toString('hex').slice(0, 8)}`;
}

/** A list of digests with what each grants; `find` compares against every entry, without an early exit. */
export class DigestTable<T> {
  readonly #entries: { readonly digest: Uint8Array; readonly value: T }[] = [];

  /** Adds a digest (32 bytes); a digest already present is refused, so no token maps to two grants. */
  add(digest: Uint8Array, value: T, what: string): void {
    if (digest.length !== 32) throw new RangeError(`${what}: a SHA-256 digest is 32 bytes`);
    if (this.#entries.some((e) => timingSafeEqual(e.digest, digest)))
      throw new RangeError(`${what}: the same token is listed twice`);
    this.#entries.push({ digest, value });
  }

  /** How many entries. */
  get size(): number {
    return this.#entries.length;
  }

  /** The value of the entry whose digest is the token's, or undefined. */
  find(token: string): T | undefined {
    const digest = tokenDigest(token);
    let found: T | undefined;
    for (const e of this.#entries) {
      // Every entry is compared: the time taken does not say which entry (or how many) matched.
      if (timingSafeEqual(e.digest, digest)) found = e.value;
    }
    return found;
  }
}

/** A digest given as 64 hex digits (a configuration that holds no token in clear). */
export function digestFromHex(hex: string, what: string): Uint8Array {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new RangeError(`${what}: tokenSha256 must be 64 hex digits`);
  return Buffer.from(hex, 'hex');
}
