/**
 * An estimate of each tenant's key count, so a SQL store need not run `COUNT(*)` over the tenant's keys (a scan
 * that grows with the index) on every claim just to enforce a cap that is far away. The exact count still runs,
 * under the claim's transaction, whenever the estimate is stale or within a margin of the cap; so the cap is
 * exact near it, and replicas that claim meanwhile are covered by the margin and the estimate's short life.
 */

interface Estimate {
  n: number;
  at: number;
}

/** Per-tenant key counts, as last counted plus what this store claimed since. */
export class KeyCountCache {
  readonly #estimates = new Map<string, Estimate>();

  constructor(private readonly maxAgeMs = 1000) {}

  /** True when the tenant is certainly below `max`: a fresh estimate with room for the margin. */
  clearlyBelow(tenant: string, max: number, now: number): boolean {
    const e = this.#estimates.get(tenant);
    if (!e || now - e.at > this.maxAgeMs || now < e.at) return false;
    return e.n + Math.max(1000, Math.ceil(max / 10)) < max;
  }

  /** Records an exact count. */
  counted(tenant: string, n: number, now: number): void {
    this.#estimates.set(tenant, { n, at: now });
  }

  /** Notes a key this store just claimed. */
  claimed(tenant: string): void {
    const e = this.#estimates.get(tenant);
    if (e) e.n++;
  }
}
