/**
 * `createTask` inside the store's IMMEDIATE transaction: the key claim (insert-if-absent), the task insert and the
 * inline push configs commit together or not at all. The write lock is held from BEGIN, so the lookup and the
 * insert of a claim cannot interleave with another process's claim of the same key.
 */
import type { Statement } from 'better-sqlite3';
import type { KeyRecord, StoredTask } from '../records.js';
import type { Scope } from '../scope.js';
import { deriveColumns, isKeyLive, toKeyRecord, type KeyRow } from '../sql/sql-rows.js';
import { StoreError } from '../sql/store-error.js';
import type { CreateTaskInput, CreateTaskResult } from '../task-store.js';
import { SQL } from './sqlite-statements.js';

/** Runs the claim + create; call only inside an IMMEDIATE transaction. */
export function createTaskTx(
  stmt: (sql: string) => Statement,
  scope: Scope,
  input: CreateTaskInput,
  now: number,
): CreateTaskResult {
  const taskId = input.task.id;
  const claim = input.claim;
  if (claim) {
    const keyArgs = { ...scope, key: claim.key };
    const row = stmt(SQL.selectKey).get(keyArgs) as KeyRow | undefined;
    if (row) {
      let held: KeyRecord = toKeyRecord(row);
      const taskExists = stmt(SQL.taskExists).get({ ...scope, taskId: held.taskId }) !== undefined;
      if (isKeyLive(held, taskExists, now)) return { outcome: 'held', key: held };
      if (!held.tombstone) {
        // Expired and its task gone: it becomes a tombstone (as the memory store does), whatever happens next.
        stmt(SQL.tombstoneKey).run(keyArgs);
        held = { ...held, tombstone: true };
      }
      if ((input.onExpiredKey ?? 'refuse') === 'refuse') return { outcome: 'expired', key: held };
      stmt(SQL.deleteKey).run(keyArgs);
    }
    const max = input.maxKeysPerTenant;
    if (max !== undefined) {
      const { n } = stmt(SQL.countTenantKeys).get({ tenant: scope.tenant }) as { n: number };
      if (n >= max) return { outcome: 'capacity' };
    }
    stmt(SQL.insertKey).run({
      ...keyArgs,
      messageId: claim.messageId,
      digest: claim.digest,
      taskId,
      now,
      expiresAt: claim.expiresAt,
    });
  }
  const d = deriveColumns(input.task, 'task');
  try {
    stmt(SQL.insertTask).run({
      ...scope,
      taskId,
      task: JSON.stringify(input.task),
      statusState: d.statusState,
      statusTs: d.statusTs,
      contextId: d.contextId,
      terminal: d.terminal ? 1 : 0,
      now,
    });
  } catch (err) {
    if (err instanceof Error && 'code' in err && err.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
      throw new StoreError('TASK_EXISTS', `task ${taskId} already exists in this scope`, { cause: err });
    }
    throw err;
  }
  for (const c of input.pushConfigs ?? []) {
    if (c.id) stmt(SQL.putPushConfig).run({ ...scope, taskId, id: c.id, config: JSON.stringify(c) });
  }
  const record: StoredTask = {
    task: input.task,
    kind: 'task',
    fence: 1,
    seq: 0,
    createdAt: now,
    updatedAt: now,
  };
  return { outcome: 'created', record };
}
