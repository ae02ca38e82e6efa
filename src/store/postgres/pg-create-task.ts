/**
 * `createTask` on PostgreSQL, in one READ COMMITTED transaction. The claim is `INSERT ... ON CONFLICT DO NOTHING`
 * on the key's primary key: of racing inserts exactly one inserts; every other waits for the winner's transaction
 * and, once it commits, inserts nothing. A loser then reads the key again (a new statement sees the winner's
 * committed row, and its task, which committed in the same transaction) and reports `held`. A key that must be
 * changed (expired into a tombstone, or replaced) is re-read `FOR UPDATE` first, so two replicas cannot both
 * replace it.
 */
import type { KeyRecord, StoredTask } from '../records.js';
import type { Scope } from '../scope.js';
import { deriveColumns, isKeyLive, toInt, toKeyRecord, type KeyRow } from '../sql/sql-rows.js';
import { StoreError } from '../sql/store-error.js';
import type { CreateTaskInput, CreateTaskResult, KeyClaim } from '../task-store.js';
import type { PgClientLike } from './pg-pool-like.js';
import type { PgStatements } from './pg-statements.js';

/** Advisory-lock class of the per-tenant key cap (with `hashtext(schema/tenant)` as the second key). */
export const CAPACITY_LOCK_CLASS = 0x41324f01;
/** How often a claim re-reads after losing to a concurrent delete before giving up (never "claimed"). */
const MAX_CLAIM_ROUNDS = 8;

type ClaimStep = { done: true; result: CreateTaskResult } | { done: false };

/** Runs the claim + create inside a transaction on `c`. */
export async function createTaskPg(
  c: PgClientLike,
  sql: PgStatements,
  schema: string,
  scope: Scope,
  input: CreateTaskInput,
  now: number,
): Promise<CreateTaskResult> {
  const claim = input.claim;
  if (claim) {
    if (input.maxKeysPerTenant !== undefined) {
      // Serialise keyed creates of one tenant while a cap applies, so the count below is exact across replicas.
      await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
        CAPACITY_LOCK_CLASS,
        `${schema}/${scope.tenant}`,
      ]);
    }
    const step = await claimKey(c, sql, scope, claim, input, now);
    if (step.done) return step.result;
  }
  const task = input.task;
  const d = deriveColumns(task, 'task');
  const inserted = await c.query(sql.insertTask, [
    scope.tenant,
    scope.owner,
    task.id,
    JSON.stringify(task),
    d.statusState,
    d.statusTs,
    d.contextId,
    d.terminal,
    now,
  ]);
  if (inserted.rows.length === 0) {
    throw new StoreError('TASK_EXISTS', `task ${task.id} already exists in this scope`);
  }
  for (const p of input.pushConfigs ?? []) {
    if (p.id) await c.query(sql.putPushConfig, [scope.tenant, scope.owner, task.id, p.id, JSON.stringify(p)]);
  }
  const record: StoredTask = { task, kind: 'task', fence: 1, seq: 0, createdAt: now, updatedAt: now };
  return { outcome: 'created', record };
}

async function claimKey(
  c: PgClientLike,
  sql: PgStatements,
  scope: Scope,
  claim: KeyClaim,
  input: CreateTaskInput,
  now: number,
): Promise<ClaimStep> {
  const keyArgs = [scope.tenant, scope.owner, claim.key];
  for (let round = 0; round < MAX_CLAIM_ROUNDS; round++) {
    const seen = await readKey(c, sql.selectKey, keyArgs);
    if (seen) {
      if (isKeyLive(seen, await taskExists(c, sql, scope, seen.taskId), now)) {
        return { done: true, result: { outcome: 'held', key: seen } };
      }
      // About to change it: lock the row and decide again on what is committed now.
      let held = await readKey(c, sql.lockKey, keyArgs);
      if (!held) continue; // deleted meanwhile (released or purged): start over
      if (isKeyLive(held, await taskExists(c, sql, scope, held.taskId), now)) {
        return { done: true, result: { outcome: 'held', key: held } };
      }
      if (!held.tombstone) {
        await c.query(sql.tombstoneKey, keyArgs);
        held = { ...held, tombstone: true };
      }
      if ((input.onExpiredKey ?? 'refuse') === 'refuse')
        return { done: true, result: { outcome: 'expired', key: held } };
      // Replace: we hold the row lock, so our delete + insert is the only claim that can land on this key.
      await c.query(sql.deleteKey, keyArgs);
    }
    if (input.maxKeysPerTenant !== undefined) {
      const { rows } = await c.query(sql.countTenantKeys, [scope.tenant]);
      if (toInt(rows[0]?.n) >= input.maxKeysPerTenant) return { done: true, result: { outcome: 'capacity' } };
    }
    const ins = await c.query(sql.insertKey, [
      ...keyArgs,
      claim.messageId,
      claim.digest,
      input.task.id,
      now,
      claim.expiresAt,
    ]);
    if (ins.rows.length === 1) return { done: false };
    // Lost the race to a concurrent claim that has now committed: the next round reads and reports it.
  }
  throw new StoreError('CLAIM_UNSETTLED', 'the key claim did not settle; nothing was created');
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
