/**
 * The key claim of the PostgreSQL store, shared by `createTask` (a key with a new task) and `claimKey` (a key for
 * an existing task, a keyed continuation); run inside the caller's READ COMMITTED transaction. The claim is
 * `INSERT ... ON CONFLICT DO NOTHING` on the key's primary key: of racing inserts exactly one inserts; every other
 * waits for the winner's transaction and, once it commits, inserts nothing. A loser then reads the key again (a new
 * statement sees the winner's committed row, and its task, which committed in the same transaction) and reports
 * `held`. A key that must be changed (expired into a tombstone, or replaced) is re-read `FOR UPDATE` first, so two
 * replicas cannot both replace it.
 */
import type { KeyCountCache } from '../sql/key-count-cache.js';
import type { KeyRecord } from '../records.js';
import type { Scope } from '../scope.js';
import { isKeyLive, toInt, toKeyRecord, type KeyRow } from '../sql/sql-rows.js';
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

/** Advisory-lock class of the per-tenant key cap (with `hashtext(schema/tenant)` as the second key). */
export const CAPACITY_LOCK_CLASS = 0x41324f01;
/** How often a claim re-reads after losing to a concurrent delete before giving up (never "claimed"). */
const MAX_CLAIM_ROUNDS = 8;

/** Where the claim runs: a client inside an open transaction, the store's statements and schema. */
export interface PgClaimContext {
  readonly c: PgClientLike;
  readonly sql: PgStatements;
  readonly schema: string;
  /** Spares the per-claim COUNT(*) of a tenant's keys while the cap is far away. */
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
  if (policy.maxKeysPerTenant !== undefined) {
    // Serialise keyed claims of one tenant while a cap applies, so the count below is exact across replicas.
    await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
      CAPACITY_LOCK_CLASS,
      `${schema}/${scope.tenant}`,
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
        await c.query(sql.tombstoneKey, keyArgs);
        held = { ...held, tombstone: true };
      }
      if ((policy.onExpiredKey ?? 'refuse') === 'refuse') return { outcome: 'expired', key: held };
      // Replace: we hold the row lock, so our delete + insert is the only claim that can land on this key.
      await c.query(sql.deleteKey, keyArgs);
    }
    const max = policy.maxKeysPerTenant;
    if (max !== undefined && !ctx.counts?.clearlyBelow(scope.tenant, max, now)) {
      const { rows } = await c.query(sql.countTenantKeys, [scope.tenant]);
      const n = toInt(rows[0]?.n);
      ctx.counts?.counted(scope.tenant, n, now);
      if (n >= max) return { outcome: 'capacity' };
    }
    ctx.counts?.claimed(scope.tenant);
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
