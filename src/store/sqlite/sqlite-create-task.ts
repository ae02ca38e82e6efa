/**
 * `createTask` inside the store's IMMEDIATE transaction: the key claim (insert-if-absent, sqlite-claim-key.ts), the
 * task insert with its worker lease, and the inline push configs commit together or not at all.
 */
import type { Statement } from 'better-sqlite3';
import type { Scope } from '../scope.js';
import { createdTaskRecord, deriveColumns, toStoredTask, type TaskRow } from '../sql/sql-rows.js';
import { StoreError } from '../sql/store-error.js';
import { leaseAt } from '../sql/worker-lease.js';
import { createdEarlier, type CreateTaskInput, type CreateTaskResult } from '../task-store.js';
import { claimKeyTx } from './sqlite-claim-key.js';
import type { KeyCountCache } from '../sql/key-count-cache.js';
import { SQL } from './sqlite-statements.js';

/** Runs the claim + create; call only inside an IMMEDIATE transaction (the caller checked `input.lease`). */
export function createTaskTx(
  stmt: (sql: string) => Statement,
  scope: Scope,
  input: CreateTaskInput,
  now: number,
  counts?: KeyCountCache,
): CreateTaskResult {
  const taskId = input.task.id;
  if (input.claim) {
    // The key goes first: if the task insert then fails, the transaction rolls the claim back with it.
    const claimed = claimKeyTx(stmt, scope, input.claim, taskId, input, now, counts);
    if (claimed.outcome === 'held' && claimed.key.taskId === taskId) {
      // Held for this very task id: an earlier application of this input landed, its answer lost (ADR 0052).
      const earlier = landed(stmt, scope, input);
      if (earlier) return earlier;
    }
    if (claimed.outcome !== 'claimed') return claimed;
  }
  const d = deriveColumns(input.task, 'task');
  // The worker's lease goes in with the row: the task is never visible without the lease its first turn holds.
  const lease = input.lease ? leaseAt(input.lease, now) : undefined;
  try {
    stmt(SQL.insertTask).run({
      tenant: scope.tenant,
      owner: scope.owner,
      taskId,
      task: JSON.stringify(input.task),
      statusState: d.statusState,
      statusTs: d.statusTs,
      contextId: d.contextId,
      terminal: d.terminal ? 1 : 0,
      now,
      leaseOwner: lease?.owner ?? null,
      leaseExpiresAt: lease?.expiresAt ?? null,
    });
  } catch (err) {
    if (err instanceof Error && 'code' in err && err.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
      // Unkeyed only: a keyed creation that landed wrote its key with the task, and was recognised above.
      const earlier = input.claim ? undefined : landed(stmt, scope, input);
      if (earlier) return earlier;
      throw new StoreError('TASK_EXISTS', `task ${taskId} already exists in this scope`, { cause: err });
    }
    throw err;
  }
  for (const c of input.pushConfigs ?? []) {
    if (c.id)
      stmt(SQL.putPushConfig).run({
        tenant: scope.tenant,
        owner: scope.owner,
        taskId,
        id: c.id,
        config: JSON.stringify(c),
      });
  }
  return { outcome: 'created', record: createdTaskRecord(input.task, now, lease) };
}

/** The task an earlier application of `input` created, if it is there (`createdEarlier`), as `created`. */
function landed(
  stmt: (sql: string) => Statement,
  scope: Scope,
  input: CreateTaskInput,
): CreateTaskResult | undefined {
  const row = stmt(SQL.selectTask).get({
    tenant: scope.tenant,
    owner: scope.owner,
    taskId: input.task.id,
  }) as TaskRow | undefined;
  const record = row ? toStoredTask(row) : undefined;
  return record && createdEarlier(input, record)
    ? { outcome: 'created', record, landedEarlier: true }
    : undefined;
}
