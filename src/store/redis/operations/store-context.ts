/**
 * What every operation of the Redis store works with (redis-task-store.ts builds it once): the connection, the
 * key layout, the clock, the local wake-ups and the scope registry. The operations live one concept per file
 * beside this one; the class only holds this context and hands its calls to them.
 */
import type { Clock } from '../../clock.js';
import type { Scope } from '../../scope.js';
import type { EventNotifier } from '../../sql/event-notifier.js';
import type { RedisConnection, RedisReply } from '../redis-connection.js';
import { scopeTag, type RedisKeys } from '../redis-keys.js';
import type { ScopeRegistry } from '../redis-scopes.js';
import type { RedisWakeups } from '../redis-wakeups.js';

export interface RedisStoreContext {
  readonly conn: RedisConnection;
  readonly keys: RedisKeys;
  readonly clock: Clock;
  /** Tombstone age used when a retention policy names none, and Redis's expiry of every tombstone. */
  readonly tombstoneTtlMs: number;
  /** Longest delay before a waiter sees a commit whose wake-up message was lost. */
  readonly pollIntervalMs: number;
  readonly notifier: EventNotifier;
  readonly scopes: ScopeRegistry;
  readonly wakeups: RedisWakeups;
  /** Aborted when the store closes: every wait ends. */
  readonly closing: AbortSignal;
}

/** The base of every key of `scope` (its hash tag decides the slot, ADR 0115). */
export function scopeBase(ctx: RedisStoreContext, scope: Scope): string {
  return ctx.keys.base(scopeTag(scope));
}

/** One command routed by `routeKey`. */
export function send(ctx: RedisStoreContext, args: string[], routeKey: string): Promise<RedisReply> {
  return ctx.conn.send(args, routeKey);
}
