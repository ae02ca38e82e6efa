/**
 * The key claim of the SQLite store, shared by `createTask` (a key with a new task) and `claimKey` (a key for an
 * existing task, a keyed continuation). Run only inside the store's IMMEDIATE transaction: the write lock is held
 * from BEGIN, so the lookup and the insert cannot interleave with another connection's or process's claim.
 */
import type { Statement } from 'better-sqlite3';
import type { KeyRecord } from '../records.js';
import type { Scope } from '../scope.js';
import { asTombstone, isKeyLive, toKeyRecord, type KeyRow } from '../sql/sql-rows.js';
import {
  claimDigest,
  liveKeyRecord,
  type ClaimKeyResult,
  type KeyClaim,
  type KeyClaimPolicy,
} from '../task-store.js';
import { AT_CAP_EXPIRY_BUDGET, type KeyCountCache } from '../sql/key-count-cache.js';
import { SQL } from './sqlite-statements.js';

/**
 * Claims `claim.key` for `taskId` (insert-if-absent), or reports why not. An expired key whose task is gone is
 * turned into a tombstone on the way, and `replace` deletes it: both inside the caller's transaction.
 */
export function claimKeyTx(
  stmt: (sql: string) => Statement,
  scope: Scope,
  claim: KeyClaim,
  taskId: string,
  policy: KeyClaimPolicy,
  now: number,
  counts?: KeyCountCache,
): ClaimKeyResult {
  const keyArgs = { tenant: scope.tenant, owner: scope.owner, key: claim.key };
  const max = policy.maxKeysPerScope;
  // The record a claim inserts, made (its digest computed) once, and only when a key may go in.
  let fresh: KeyRecord | undefined;
  const freshKey = (): KeyRecord => (fresh ??= liveKeyRecord(claim, claimDigest(claim), taskId, now));
  // Without a cap nothing has to be checked before a new key goes in, and almost every key is new: insert it if
  // absent, one statement; only a key that was there already is read and looked at.
  if (max === undefined) {
    if (stmt(SQL.insertKeyIfAbsent).run(keyRowParams(scope, freshKey(), now)).changes === 1) {
      counts?.claimed(scope);
      return { outcome: 'claimed', key: freshKey() };
    }
  }
  const row = stmt(SQL.selectKey).get(keyArgs) as KeyRow | undefined;
  if (row) {
    let held: KeyRecord = toKeyRecord(row);
    const taskExists =
      stmt(SQL.taskExists).get({ tenant: scope.tenant, owner: scope.owner, taskId: held.taskId }) !==
      undefined;
    if (isKeyLive(held, taskExists, now)) return { outcome: 'held', key: held };
    if (!held.tombstone) {
      // Expired and its task gone: it becomes a tombstone (as the memory store does), whatever happens next.
      stmt(SQL.tombstoneKey).run({ tenant: scope.tenant, owner: scope.owner, key: claim.key, now });
      held = asTombstone(held, now);
    }
    if ((policy.onExpiredKey ?? 'refuse') === 'refuse') return { outcome: 'expired', key: held };
    stmt(SQL.deleteKey).run(keyArgs);
  }
  if (
    max !== undefined &&
    !counts?.clearlyBelow(scope, max, now) &&
    !roomUnderCap(stmt, scope, max, now, counts)
  ) {
    return { outcome: 'capacity' };
  }
  counts?.claimed(scope);
  const key = freshKey();
  stmt(SQL.insertKey).run(keyRowParams(scope, key, now));
  return { outcome: 'claimed', key };
}

/** The named parameters of a key's row (written out: object spread costs more than the insert, ADR 0050). */
function keyRowParams(scope: Scope, key: KeyRecord, now: number): Record<string, string | number> {
  return {
    tenant: scope.tenant,
    owner: scope.owner,
    key: key.key,
    messageId: key.messageId,
    digest: key.digest,
    taskId: key.taskId,
    now,
    expiresAt: key.expiresAt,
  };
}

/**
 * Whether the scope holds fewer than `max` live keys (exact count). At the cap, its keys past expiry whose task is
 * gone are not live any more: they are turned into tombstones (a bounded number per claim) and no longer count.
 */
function roomUnderCap(
  stmt: (sql: string) => Statement,
  scope: Scope,
  max: number,
  now: number,
  counts: KeyCountCache | undefined,
): boolean {
  let { n } = stmt(SQL.countScopeLiveKeys).get(scope) as { n: number };
  if (n >= max)
    n -= stmt(SQL.expireScopeKeys).run({
      tenant: scope.tenant,
      owner: scope.owner,
      now,
      limit: AT_CAP_EXPIRY_BUDGET,
    }).changes;
  counts?.counted(scope, n, now);
  return n < max;
}
