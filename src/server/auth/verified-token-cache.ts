/**
 * Tokens whose signature verified, remembered for a short while (ADR 0136): verifying an ES256 JWT costs more
 * than the whole keyed send it authenticates, and a caller sends the same token with every
 * request until it expires. An entry is kept by the token's SHA-256 digest (never the token), holds only what the
 * verification accepted, and ends at the first of: the token's own expiry (with the verifier's clock tolerance,
 * exactly when the verifier would start refusing it), `maxAgeMs` after it was verified, or being the oldest entry
 * when the cache is full. Refusals are never kept: a flood of bad tokens cannot fill the cache, and a token
 * refused for its `nbf` is judged again when it is presented again.
 */
import { sha256Base64 } from '../../idempotency/sha256.js';
import type { Identity } from './authenticator.js';

/** How `jwtBearer` remembers verified tokens. */
export interface VerifiedTokenCacheOptions {
  /** Tokens remembered at most (default 10,000); the oldest goes first. */
  readonly maxEntries?: number;
  /** How long after its verification a token is taken without verifying it again, in ms (default 60,000). */
  readonly maxAgeMs?: number;
}

export const DEFAULT_VERIFIED_TOKENS = 10_000;
export const DEFAULT_VERIFIED_TOKEN_AGE_MS = 60_000;

interface Entry {
  readonly identity: Identity;
  readonly until: number;
}

/** A bounded map from token digest to the identity its verification accepted, each entry with an end. */
export class VerifiedTokenCache {
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;
  readonly #maxAgeMs: number;

  constructor(
    options: VerifiedTokenCacheOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    this.#maxEntries = positiveWhole('maxEntries', options.maxEntries ?? DEFAULT_VERIFIED_TOKENS);
    this.#maxAgeMs = positiveWhole('maxAgeMs', options.maxAgeMs ?? DEFAULT_VERIFIED_TOKEN_AGE_MS);
  }

  /** The identity `token` was accepted as, if it was and its entry has not ended. */
  get(token: string): Identity | undefined {
    const key = digestOf(token);
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (this.now() >= entry.until) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.identity;
  }

  /**
   * Remembers that `token` verified as `identity`. `expiresAtMs` is when the verifier stops accepting it (its
   * `exp` plus the clock tolerance), absent for a token without `exp`.
   */
  set(token: string, identity: Identity, expiresAtMs: number | undefined): void {
    const until = Math.min(this.now() + this.#maxAgeMs, expiresAtMs ?? Infinity);
    if (!(until > this.now())) return;
    const key = digestOf(token);
    this.#entries.delete(key);
    // Frozen: one identity answers every request that presents the token until the entry ends.
    const tenants = identity.tenants === '*' ? '*' : Object.freeze([...identity.tenants]);
    this.#entries.set(key, { identity: Object.freeze({ principal: identity.principal, tenants }), until });
    if (this.#entries.size > this.#maxEntries) {
      // Maps iterate in insertion order: the first key is the oldest entry.
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }

  /** Entries held (ended ones included until they are looked up or pushed out). */
  get size(): number {
    return this.#entries.size;
  }
}

function digestOf(token: string): string {
  return sha256Base64(token);
}

function positiveWhole(name: string, n: number): number {
  if (!Number.isSafeInteger(n) || n < 1)
    throw new RangeError(`jwtBearer: cache.${name} must be a whole number >= 1`);
  return n;
}
