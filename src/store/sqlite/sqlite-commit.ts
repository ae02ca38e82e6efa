/**
 * The compare-and-set of the SQLite store, run inside its IMMEDIATE transaction: `commit` uses it, and so does
 * retention's abandoned phase, so ending an abandoned task is written exactly like any other status change.
 */
import type { Statement } from 'better-sqlite3';
import type { StoredTask } from '../records.js';
import type { Scope } from '../scope.js';
import type { Message } from '../../protocol/model.js';
import { deriveColumns, fromJson, toInt, toLease, toStoredTask, type TaskRow } from '../sql/sql-rows.js';
import { refusedOrLanded, type CommitResult, type TaskWrite } from '../task-store.js';
import { checkWriteId, leaseAfter } from '../sql/worker-lease.js';
import { SQL } from './sqlite-statements.js';

/** The columns of a task row a commit reads (SQL.selectCommitHead). */
interface CommitHeadRow {
  kind: unknown;
  reply: unknown;
  fence: unknown;
  seq: unknown;
  created_at: unknown;
  lease_owner: unknown;
  lease_expires_at: unknown;
  terminal: unknown;
  write_id: unknown;
}

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
  const params = { tenant: scope.tenant, owner: scope.owner, taskId };
  // What the compare-and-set needs, without the task's JSON: it is replaced whole, never read, on the way in.
  const head = stmt(SQL.selectCommitHead).get(params) as CommitHeadRow | undefined;
  if (!head) return { ok: false, current: undefined };
  const cur = {
    kind: head.kind === 'message' ? ('message' as const) : ('task' as const),
    fence: toInt(head.fence),
    seq: toInt(head.seq),
    createdAt: toInt(head.created_at),
    lease: toLease(head.lease_owner, head.lease_expires_at),
  };
  const writeId = checkWriteId(write.writeId);
  const lastWriteId = typeof head.write_id === 'string' ? head.write_id : undefined;
  if (
    cur.fence !== write.expectFence ||
    (write.expectSeq !== undefined && cur.seq !== write.expectSeq) ||
    // Its own earlier attempt landed (ADR 0052), or the task is finished: it takes no further write.
    (writeId !== undefined && lastWriteId === writeId) ||
    toInt(head.terminal) === 1
  ) {
    // Refused (or landed before): the caller gets the whole record (rare, so read again in full).
    const current = toStoredTask(stmt(SQL.selectTask).get(params) as TaskRow);
    return refusedOrLanded(write, current, lastWriteId);
  }
  let seq = cur.seq;
  const insert = stmt(SQL.insertEvent);
  for (const event of write.events)
    insert.run({
      tenant: scope.tenant,
      owner: scope.owner,
      taskId,
      seq: ++seq,
      event: JSON.stringify(event),
    });
  // The outbox mark (ADR 0045): the task's webhooks, if any, now have events up to `seq` to deliver.
  if (write.events.length > 0)
    stmt(SQL.markPushTaskSeq).run({ tenant: scope.tenant, owner: scope.owner, taskId, seq });
  const stored = head.reply === null || head.reply === undefined ? undefined : fromJson<Message>(head.reply);
  const reply = write.reply ?? stored;
  const kind = write.reply ? 'message' : cur.kind;
  const d = deriveColumns(write.task, kind);
  const fence = write.nextFence ?? cur.fence;
  const lease = leaseAfter(cur.lease, write.lease, now);
  stmt(SQL.updateTask).run({
    tenant: scope.tenant,
    owner: scope.owner,
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
    writeId: writeId ?? null,
  });
  // Built by assignment, not with `...(reply ? { reply } : {})`: object spread is the slow path (ADR 0050).
  const record: { -readonly [K in keyof StoredTask]: StoredTask[K] } = {
    task: write.task,
    kind,
    fence,
    seq,
    createdAt: cur.createdAt,
    updatedAt: now,
  };
  if (reply) record.reply = reply;
  if (lease) record.lease = lease;
  return { ok: true, record };
}
