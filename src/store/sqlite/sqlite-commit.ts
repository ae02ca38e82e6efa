/**
 * The compare-and-set of the SQLite store, run inside its IMMEDIATE transaction: `commit` uses it, and so does
 * retention's abandoned phase, so ending an abandoned task is written exactly like any other status change.
 */
import type { Statement } from 'better-sqlite3';
import type { StoredTask } from '../records.js';
import type { Scope } from '../scope.js';
import { deriveColumns, toStoredTask, type TaskRow } from '../sql/sql-rows.js';
import type { CommitResult, TaskWrite } from '../task-store.js';
import { leaseAfter } from '../sql/worker-lease.js';
import { SQL } from './sqlite-statements.js';

/**
 * Applies `write` if the stored fence (and seq, when given) match, appending its events and setting, clearing or
 * keeping the worker lease as it says (the caller checked a grant); call inside a transaction.
 */
export function commitTx(
  stmt: (sql: string) => Statement,
  scope: Scope,
  taskId: string,
  write: TaskWrite,
  now: number,
): CommitResult {
  const row = stmt(SQL.selectTask).get({ ...scope, taskId }) as TaskRow | undefined;
  const cur = row ? toStoredTask(row) : undefined;
  if (!cur) return { ok: false, current: undefined };
  if (cur.fence !== write.expectFence || (write.expectSeq !== undefined && cur.seq !== write.expectSeq)) {
    return { ok: false, current: cur };
  }
  let seq = cur.seq;
  const insert = stmt(SQL.insertEvent);
  for (const event of write.events)
    insert.run({ ...scope, taskId, seq: ++seq, event: JSON.stringify(event) });
  // The outbox mark (ADR 0045): the task's webhooks, if any, now have events up to `seq` to deliver.
  if (write.events.length > 0) stmt(SQL.markPushTaskSeq).run({ ...scope, taskId, seq });
  const reply = write.reply ?? cur.reply;
  const kind = write.reply ? 'message' : cur.kind;
  const d = deriveColumns(write.task, kind);
  const fence = write.nextFence ?? cur.fence;
  const lease = leaseAfter(cur.lease, write.lease, now);
  stmt(SQL.updateTask).run({
    ...scope,
    taskId,
    kind,
    task: JSON.stringify(write.task),
    reply: reply ? JSON.stringify(reply) : null,
    fence,
    seq,
    statusState: d.statusState,
    statusTs: d.statusTs,
    contextId: d.contextId,
    terminal: d.terminal ? 1 : 0,
    now,
    leaseOwner: lease?.owner ?? null,
    leaseExpiresAt: lease?.expiresAt ?? null,
  });
  const record: StoredTask = {
    task: write.task,
    kind,
    ...(reply ? { reply } : {}),
    fence,
    seq,
    createdAt: cur.createdAt,
    updatedAt: now,
    ...(lease ? { lease } : {}),
  };
  return { ok: true, record };
}
