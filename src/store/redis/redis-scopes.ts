/**
 * The registry of scopes (ADR 0115): store-wide work (recovery of lapsed leases, push claims, retention, the live
 * key count) runs scope by scope, each scope's indexes being in its own slot, so the store must know which scopes
 * hold anything. A process adds a scope before it first writes to it, and again whenever its own note of that is
 * older than `REFRESH_MS`; retention forgets a scope it found empty only if nobody added it for `IDLE_MS`, longer
 * than any process trusts its note: a process about to write to a scope has added it within `REFRESH_MS`, so its
 * scope is never forgotten under it.
 */
import type { Clock } from '../clock.js';
import type { Scope } from '../scope.js';
import type { RedisConnection } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';
import { scopeOfTag } from './redis-keys.js';
import { list } from './redis-records.js';
import { SCRIPTS } from './redis-scripts.js';

/** How long a process trusts that a scope it added is still in the registry. */
export const REFRESH_MS = 10 * 60_000;
/** How long a scope must go without being added before an empty one is forgotten. */
export const IDLE_MS = 60 * 60_000;
/** Notes kept per process: past it the oldest are forgotten (and simply added again when used). */
const MAX_NOTES = 10_000;

export class ScopeRegistry {
  readonly #noted = new Map<string, number>();

  constructor(
    private readonly conn: RedisConnection,
    private readonly keys: RedisKeys,
    private readonly clock: Clock,
  ) {}

  /** Makes sure the scope of `tag` is in the registry before a write to it. */
  async ensure(tag: string): Promise<void> {
    const now = this.clock.now();
    const at = this.#noted.get(tag);
    if (at !== undefined && now - at < REFRESH_MS && now >= at) return;
    await this.conn.send(['ZADD', this.keys.scopes, 'GT', String(now), tag], this.keys.scopes);
    this.#noted.delete(tag);
    this.#noted.set(tag, now);
    if (this.#noted.size > MAX_NOTES) this.#noted.delete(this.#noted.keys().next().value!);
  }

  /** Every registered scope, as tags. */
  async tags(): Promise<string[]> {
    const reply = await this.conn.send(['ZRANGE', this.keys.scopes, '0', '-1'], this.keys.scopes);
    return list(reply).map(String);
  }

  /** Every registered scope. */
  async scopes(): Promise<{ tag: string; scope: Scope }[]> {
    return (await this.tags()).map((tag) => ({ tag, scope: scopeOfTag(tag) }));
  }

  /** Forgets an empty scope unless it was added within `IDLE_MS`. */
  async forgetIfIdle(tag: string): Promise<void> {
    const cutoff = this.clock.now() - IDLE_MS;
    await SCRIPTS.forgetScope.run(this.conn, [this.keys.scopes], [tag, String(cutoff)]);
  }
}
