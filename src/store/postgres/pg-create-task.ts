/**
 * `createTask` on PostgreSQL, in one READ COMMITTED transaction: the key claim (pg-claim-key.ts), the task insert
 * with its worker lease, and the inline push configs commit together or not at all.
 */
import type { Scope } from '../scope.js';
import { createdTaskRecord, deriveColumns } from '../sql/sql-rows.js';
import { StoreError } from '../sql/store-error.js';
import { leaseAt } from '../sql/worker-lease.js';
import type { CreateTaskInput, CreateTaskResult } from '../task-store.js';
import { claimKeyPg, type PgClaimContext } from './pg-claim-key.js';

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
    if (claimed.outcome !== 'claimed') return claimed;
  }
  const d = deriveColumns(task, 'task');
  // The worker's lease goes in with the row: the task is never visible without the lease its first turn holds.
  const lease = input.lease ? leaseAt(input.lease, now) : undefined;
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
    lease?.owner ?? null,
    lease?.expiresAt ?? null,
  ]);
  if (inserted.rows.length === 0) {
    throw new StoreError('TASK_EXISTS', `task ${task.id} already exists in this scope`);
  }
  for (const p of input.pushConfigs ?? []) {
    if (p.id) await c.query(sql.putPushConfig, [scope.tenant, scope.owner, task.id, p.id, JSON.stringify(p)]);
  }
  return { outcome: 'created', record: createdTaskRecord(task, now, lease) };
}
