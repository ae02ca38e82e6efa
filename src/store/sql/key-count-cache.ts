/**
 * An estimate of each scope's live key count, so a SQL store need not run `COUNT(*)` over a scope's keys (a scan
 * that grows with the index) on every claim just to enforce a cap that is far away. The exact count still runs,
 * under the claim's transaction, whenever the estimate is stale or within a margin of the cap; so the cap is
 * exact near it, and replicas that claim meanwhile are covered by the margin and the estimate's short life.
 * Keys that stop being live (tombstoned, released) only make the estimate too high: the safe direction.
 */
import type { Scope } from '../scope.js';

interface Estimate {
  n: number;
  at: number;
}

/** How many expired keys of a scope a claim at the cap turns into tombstones before it recounts. */
export const AT_CAP_EXPIRY_BUDGET = 1000;

/** The cache key of a scope (JSON, so no tenant/owner pair can collide with another). */
export function scopeKey(scope: Scope): string {
  return JSON.stringify([scope.tenant, scope.owner]);
}

/** Per-scope live key counts, as last counted plus what this store claimed since. */
export class KeyCountCache {
  readonly #estimates = new Map<string, Estimate>();

  /**
   * @param maxAgeMs how long a count is trusted.
   * @param maxEntries bound on remembered scopes: one per principal could otherwise grow without end.
   */
  constructor(
    private readonly maxAgeMs = 1000,
    private readonly maxEntries = 10_000,
  ) {}

  /** True when the scope is certainly below `max`: a fresh estimate with room for the margin. */
  clearlyBelow(scope: Scope, max: number, now: number): boolean {
    const e = this.#estimates.get(scopeKey(scope));
    if (!e || now - e.at > this.maxAgeMs || now < e.at) return false;
    return e.n + Math.max(1000, Math.ceil(max / 10)) < max;
  }

  /** Records an exact count. */
  counted(scope: Scope, n: number, now: number): void {
    const key = scopeKey(scope);
    // Re-inserted, so the map's order is the order of counting and the oldest entries go first.
    this.#estimates.delete(key);
    if (this.#estimates.size >= this.maxEntries) this.#evict(now);
    this.#estimates.set(key, { n, at: now });
  }

  /** Notes a key this store just claimed. */
  claimed(scope: Scope): void {
    const e = this.#estimates.get(scopeKey(scope));
    if (e) e.n++;
  }

  /** Number of scopes remembered. */
  get size(): number {
    return this.#estimates.size;
  }

  /**
   * Drops estimates from the oldest on (the map is in counting order) while they are stale or the map is still
   * full: a dropped estimate only costs one exact count, and the walk stops at the first fresh entry.
   */
  #evict(now: number): void {
    for (const [key, e] of this.#estimates) {
      if (now - e.at <= this.maxAgeMs && this.#estimates.size < this.maxEntries) break;
      this.#estimates.delete(key);
    }
  }
}
