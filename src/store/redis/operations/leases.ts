/**
 * Worker leases and leadership on Redis: renewing a task's lease (fenced), finding lapsed leases and counting
 * held ones over every scope, a parent's renewal note of a delegated task, and the store-wide leadership roles.
 */
import type { LapsedTask, LeaseCensus } from '../../records.js';
import type { Scope } from '../../scope.js';
import { leaseInputError } from '../../sql/lease.js';
import { checkLimit, checkOwnerAndTtl } from '../../sql/worker-lease.js';
import { scopeTag } from '../redis-keys.js';
import { list, replyInt, toStoredTask } from '../redis-records.js';
import { SCRIPTS } from '../redis-scripts.js';
import { scopeBase, send, type RedisStoreContext } from './store-context.js';

/** How long past its lease Redis keeps a leadership role's key (the store's clock decides; this frees memory). */
const LEAD_KEY_MARGIN_MS = 60_000;

export async function renewLease(
  ctx: RedisStoreContext,
  scope: Scope,
  taskId: string,
  fence: number,
  owner: string,
  ttlMs: number,
): Promise<boolean> {
  checkOwnerAndTtl('renewLease', owner, ttlMs);
  const args = [taskId, String(fence), owner, String(ctx.clock.now() + ttlMs)];
  return (await SCRIPTS.renewLease.run(ctx.conn, [scopeBase(ctx, scope)], args)) === 1;
}

export async function findLapsedLeases(ctx: RedisStoreContext, limit: number): Promise<LapsedTask[]> {
  checkLimit('findLapsedLeases', limit);
  if (limit === 0) return [];
  const now = String(ctx.clock.now());
  const per = await Promise.all(
    (await ctx.scopes.scopes()).map(async ({ tag, scope }) => {
      const r = list(await SCRIPTS.lapsed.run(ctx.conn, [ctx.keys.base(tag)], [now, String(limit)]));
      const out: LapsedTask[] = [];
      for (let i = 0; i + 1 < r.length; i += 2) {
        const record = toStoredTask(r[i + 1]!);
        // The script lists only tasks whose hash holds a fence and a lease owner; one without a lease expiry
        // (never put in the lease index so) holds no lease to lapse, and is not listed.
        if (record?.lease === undefined) continue;
        out.push({
          tenant: scope.tenant,
          owner: scope.owner,
          taskId: String(r[i]),
          fence: record.fence,
          lease: record.lease,
          record,
        });
      }
      return out;
    }),
  );
  return per
    .flat()
    .sort((a, b) => a.lease.expiresAt - b.lease.expiresAt)
    .slice(0, limit);
}

export async function leaseCensus(ctx: RedisStoreContext): Promise<LeaseCensus> {
  const now = String(ctx.clock.now());
  let held = 0;
  let first: number | undefined;
  for (const { tag } of await ctx.scopes.scopes()) {
    const [n, at] = list(await SCRIPTS.census.run(ctx.conn, [ctx.keys.base(tag)], [now]));
    held += replyInt(n);
    if (at !== null && at !== undefined) first = Math.min(first ?? Infinity, Number(at));
  }
  return held === 0 || first === undefined ? { held } : { held, firstExpiresAt: first };
}

export async function recordParentRenewal(
  ctx: RedisStoreContext,
  scope: Scope,
  taskId: string,
): Promise<boolean> {
  const args = [taskId, String(ctx.clock.now())];
  return (await SCRIPTS.parentRenewal.run(ctx.conn, [scopeBase(ctx, scope)], args)) === 1;
}

export async function lastParentRenewal(
  ctx: RedisStoreContext,
  scope: Scope,
  taskId: string,
): Promise<number | undefined> {
  const key = ctx.keys.task(scopeTag(scope), taskId);
  const v = await send(ctx, ['HGET', key, 'pr'], key);
  return v === null ? undefined : replyInt(v);
}

export async function tryLead(
  ctx: RedisStoreContext,
  role: string,
  holder: string,
  ttlMs: number,
): Promise<boolean> {
  const bad = leaseInputError(role, holder, ttlMs);
  if (bad) throw bad;
  const now = ctx.clock.now();
  const args = [holder, String(now + ttlMs), String(now), String(ttlMs + LEAD_KEY_MARGIN_MS)];
  return (await SCRIPTS.tryLead.run(ctx.conn, [ctx.keys.lead(role)], args)) === 1;
}
