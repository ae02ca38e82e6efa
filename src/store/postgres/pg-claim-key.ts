/**
 * The key claim of the PostgreSQL store, shared by `createTask` (a key with a new task) and `claimKey` (a key for
 * an existing task, a keyed continuation); run inside the caller's READ COMMITTED transaction. The claim is
 * `INSERT ... ON CONFLICT DO NOTHING` on the key's primary key: of racing inserts exactly one inserts; every other
 * waits for the winner's transaction and, once it commits, inserts nothing. A loser then reads the key again (a new
 * statement sees the winner's committed row, and its task, which committed in the same transaction) and reports
 * `held`. A key that must be changed (expired into a tombstone, or replaced) is re-read `FOR UPDATE` first, so two
 * replicas cannot both replace it.
 */
import { AT_CAP_EXPIRY_BUDGET, type KeyCountCache } from '../sql/key-count-cache.js';
import type { KeyRecord } from '../records.js';
import type { Scope } from '../scope.js';
import { asTombstone, isKeyLive, toInt, toKeyRecord, type KeyRow } from '../sql/sql-rows.js';
import { StoreError } from '../sql/store-error.js';
import {
  claimDigest,
  liveKeyRecord,
  type ClaimKeyResult,
  type KeyClaim,
  type KeyClaimPolicy,
} from '../task-store.js';
import type { PgClientLike } from './pg-pool-like.js';
import type { PgStatements } from './pg-statements.js';

/** Advisory-lock class of the per-scope key cap (with the hash of schema, tenant and owner as the second key). */
export const CAPACITY_LOCK_CLASS = 0x41324f01;
/** How often a claim re-reads after losing to a concurrent delete before giving up (never "claimed"). */
const MAX_CLAIM_ROUNDS = 8;

/** Where the claim runs: a client inside an open transaction, the store's statements and schema. */
export interface PgClaimContext {
  readonly c: PgClientLike;
  readonly sql: PgStatements;
  readonly schema: string;
  /** Spares the per-claim COUNT(*) of a scope's live keys while the cap is far away. */
  readonly counts?: KeyCountCache;
}

/**
 * Claims `claim.key` for `taskId` (insert-if-absent) inside the transaction on `ctx.c`, or reports why not.
 * `claimed` means the key row is inserted but not yet committed: the caller commits it with whatever else it writes.
 */
export async function claimKeyPg(
  ctx: PgClaimContext,
  scope: Scope,
  claim: KeyClaim,
  taskId: string,
  policy: KeyClaimPolicy,
  now: number,
): Promise<ClaimKeyResult> {
  const { c, sql, schema } = ctx;
  const cap = policy.maxKeysPerScope;
  if (cap !== undefined && !ctx.counts?.clearlyBelow(scope, cap, now)) {
    // Near the cap (or without a fresh count), serialise the scope's keyed claims, so the count below is exact
    // across replicas. Far from it no lock is taken (ADR 0047): a claim never waits on another key's transaction,
    // and the count's margin (a tenth of the cap, at least 1,000) covers what other replicas claim while the
    // count is trusted (1 s). No cap, no lock. The lock name is JSON so no tenant/owner pair can pass for
    // another; a hash collision only serialises more.
    await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
      CAPACITY_LOCK_CLASS,
      JSON.stringify([schema, scope.tenant, scope.owner]),
    ]);
  }
  const keyArgs = [scope.tenant, scope.owner, claim.key];
  for (let round = 0; round < MAX_CLAIM_ROUNDS; round++) {
    const seen = await readKey(c, sql.selectKey, keyArgs);
    if (seen) {
      if (isKeyLive(seen, await taskExists(c, sql, scope, seen.taskId), now))
        return { outcome: 'held', key: seen };
      // About to change it: lock the row and decide again on what is committed now.
      let held = await readKey(c, sql.lockKey, keyArgs);
      if (!held) continue; // deleted meanwhile (released or purged): start over
      if (isKeyLive(held, await taskExists(c, sql, scope, held.taskId), now))
        return { outcome: 'held', key: held };
      if (!held.tombstone) {
        await c.query(sql.tombstoneKey, [...keyArgs, now]);
        held = asTombstone(held, now);
      }
      if ((policy.onExpiredKey ?? 'refuse') === 'refuse') return { outcome: 'expired', key: held };
      // Replace: we hold the row lock, so our delete + insert is the only claim that can land on this key.
      await c.query(sql.deleteKey, keyArgs);
    }
    const max = policy.maxKeysPerScope;
    if (
      max !== undefined &&
      !ctx.counts?.clearlyBelow(scope, max, now) &&
      !(await roomUnderCap(ctx, scope, max, now))
    ) {
      return { outcome: 'capacity' };
    }
    ctx.counts?.claimed(scope);
    const digest = claimDigest(claim);
    const ins = await c.query(sql.insertKey, [
      ...keyArgs,
      claim.messageId,
      digest,
      taskId,
      now,
      claim.expiresAt,
    ]);
    if (ins.rows.length === 1) {
      return { outcome: 'claimed', key: liveKeyRecord(claim, digest, taskId, now) };
    }
    // Lost the race to a concurrent claim that has now committed: the next round reads and reports it.
  }
  throw new StoreError('CLAIM_UNSETTLED', 'the key claim did not settle; nothing was written');
}

async function readKey(c: PgClientLike, text: string, args: unknown[]): Promise<KeyRecord | undefined> {
  const row = (await c.query(text, args)).rows[0];
  return row ? toKeyRecord(row as unknown as KeyRow) : undefined;
}

async function taskExists(
  c: PgClientLike,
  sql: PgStatements,
  scope: Scope,
  taskId: string,
): Promise<boolean> {
  return (await c.query(sql.taskExists, [scope.tenant, scope.owner, taskId])).rows.length > 0;
}

/**
 * Whether the scope holds fewer than `max` live keys (exact: the caller holds the scope's advisory lock). At the
 * cap, its keys past expiry whose task is gone are not live any more: they are turned into tombstones (a bounded
 * number per claim) and no longer count.
 */
async function roomUnderCap(ctx: PgClaimContext, scope: Scope, max: number, now: number): Promise<boolean> {
  const { c, sql } = ctx;
  let n = toInt((await c.query(sql.countScopeLiveKeys, [scope.tenant, scope.owner])).rows[0]?.n);
  if (n >= max) {
    const expired = await c.query(sql.expireScopeKeys, [
      scope.tenant,
      scope.owner,
      now,
      AT_CAP_EXPIRY_BUDGET,
    ]);
    n -= expired.rows.length;
  }
  ctx.counts?.counted(scope, n, now);
  return n < max;
}
