/**
 * `createTask` on PostgreSQL, in one READ COMMITTED transaction: the key claim (pg-claim-key.ts), the task insert
 * with its worker lease, and the inline push configs commit together or not at all.
 */
import type { Task } from '../../protocol/model.js';
import type { TaskLease } from '../records.js';
import type { Scope } from '../scope.js';
import { createdTaskRecord, deriveColumns, toStoredTask, type TaskRow } from '../sql/sql-rows.js';
import { StoreError } from '../sql/store-error.js';
import { leaseAt } from '../sql/worker-lease.js';
import { claimKeyPg, type PgClaimContext } from './pg-claim-key.js';
import { claimDigest, createdEarlier, type CreateTaskInput, type CreateTaskResult } from '../task-store.js';
import type { PgQueryable } from './pg-pool-like.js';
import type { PgStatements } from './pg-statements.js';
import type { KeyCountCache } from '../sql/key-count-cache.js';

/**
 * The common keyed send in one statement (ADR 0048): a new key and its task, no push configs, no key cap near.
 * Returns the created record, or undefined when the key is already there (held, expired or a tombstone): the
 * caller then runs the full transaction (`createTaskPg`), which reads the key and says which. Nothing was
 * written in that case.
 */
export async function claimAndCreatePg(
  db: PgQueryable,
  sql: PgStatements,
  scope: Scope,
  input: CreateTaskInput,
  now: number,
  counts: KeyCountCache | undefined,
): Promise<CreateTaskResult | undefined> {
  const claim = input.claim;
  if (!claim) return undefined;
  const task = input.task;
  const lease = input.lease ? leaseAt(input.lease, now) : undefined;
  const digest = claimDigest(claim);
  let created: number;
  try {
    const { rows } = await db.query(sql.claimAndCreate, [
      ...taskInsertValues(scope, task, now, lease),
      claim.key,
      claim.messageId,
      digest,
      claim.expiresAt,
    ]);
    created = Number(rows[0]?.created ?? 0);
  } catch (err) {
    if (err instanceof Error && 'code' in err && err.code === '23505') {
      throw new StoreError('TASK_EXISTS', `task ${task.id} already exists in this scope`, { cause: err });
    }
    throw err;
  }
  if (created !== 1) return undefined;
  counts?.claimed(scope);
  return {
    outcome: 'created',
    record: createdTaskRecord(task, now, lease),
  };
}

/** Whether a send may take the one-statement path: keyed, no push configs, and no cap to count against. */
export function canClaimInOneStatement(
  input: CreateTaskInput,
  counts: KeyCountCache | undefined,
  scope: Scope,
  now: number,
): boolean {
  if (!input.claim || (input.pushConfigs?.length ?? 0) > 0) return false;
  const cap = input.maxKeysPerScope;
  return cap === undefined || counts?.clearlyBelow(scope, cap, now) === true;
}

/** Runs the claim + create inside the transaction on `ctx.c` (the caller checked `input.lease`). */
export async function createTaskPg(
  ctx: PgClaimContext,
  scope: Scope,
  input: CreateTaskInput,
  now: number,
): Promise<CreateTaskResult> {
  const { c, sql } = ctx;
  const task = input.task;
  if (input.claim) {
    // The key goes first: if the task insert then fails, the rollback takes the claim with it.
    const claimed = await claimKeyPg(ctx, scope, input.claim, task.id, input, now);
    if (claimed.outcome === 'held' && claimed.key.taskId === task.id) {
      // Held for this very task id: an earlier application of this input landed, its answer lost (ADR 0052).
      const earlier = await landed(ctx, scope, input);
      if (earlier) return earlier;
    }
    if (claimed.outcome !== 'claimed') return claimed;
  }
  // The worker's lease goes in with the row: the task is never visible without the lease its first turn holds.
  const lease = input.lease ? leaseAt(input.lease, now) : undefined;
  const inserted = await c.query(sql.insertTask, taskInsertValues(scope, task, now, lease));
  if (inserted.rows.length === 0) {
    // Unkeyed only: a keyed creation that landed wrote its key with the task, and was recognised above.
    const earlier = input.claim ? undefined : await landed(ctx, scope, input);
    if (earlier) return earlier;
    throw new StoreError('TASK_EXISTS', `task ${task.id} already exists in this scope`);
  }
  for (const p of input.pushConfigs ?? []) {
    if (p.id) await c.query(sql.putPushConfig, [scope.tenant, scope.owner, task.id, p.id, JSON.stringify(p)]);
  }
  return { outcome: 'created', record: createdTaskRecord(task, now, lease) };
}

/** The task an earlier application of `input` created, if it is there (`createdEarlier`), as `created`. */
async function landed(
  ctx: PgClaimContext,
  scope: Scope,
  input: CreateTaskInput,
): Promise<CreateTaskResult | undefined> {
  const row = (await ctx.c.query(ctx.sql.selectTask, [scope.tenant, scope.owner, input.task.id])).rows[0];
  const record = row ? toStoredTask(row as unknown as TaskRow) : undefined;
  return record && createdEarlier(input, record)
    ? { outcome: 'created', record, landedEarlier: true }
    : undefined;
}

/** The parameters $1..$11 of a new task's row, as `insertTask` and `claimAndCreate` take them. */
export function taskInsertValues(
  scope: Scope,
  task: Task,
  now: number,
  lease: TaskLease | undefined,
): unknown[] {
  const d = deriveColumns(task, 'task');
  return [
    scope.tenant,
    scope.owner,
    task.id,
    JSON.stringify(task),
    d.statusState,
    d.statusTs,
    d.contextId,
    d.terminal,
    now,
    lease?.owner ?? null,
    lease?.expiresAt ?? null,
  ];
}
