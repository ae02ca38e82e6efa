/**
 * Tasks on Redis: reading one (a single HMGET), listing a scope's (a read-only script over its indexes), and the
 * fenced compare-and-set of a commit with its events, one script that also announces the commit (ADR 0118).
 */
import { isTerminalState } from '../../../protocol/task-state.js';
import { decodePageToken } from '../../page-token.js';
import type { StoredTask } from '../../records.js';
import type { Scope } from '../../scope.js';
import { taskKey } from '../../sql/event-notifier.js';
import { toTaskPage } from '../../sql/list-query.js';
import { checkLeaseGrant, checkWriteId, leaseAt } from '../../sql/worker-lease.js';
import {
  refusedOrLanded,
  type CommitResult,
  type TaskPage,
  type TaskQuery,
  type TaskWrite,
} from '../../task-store.js';
import { scopeTag } from '../redis-keys.js';
import { TASK_FIELDS, list, replyInt, replyString, toStoredTask } from '../redis-records.js';
import { SCRIPTS } from '../redis-scripts.js';
import { scopeBase, send, type RedisStoreContext } from './store-context.js';

export async function getTask(
  ctx: RedisStoreContext,
  scope: Scope,
  taskId: string,
): Promise<StoredTask | undefined> {
  const key = ctx.keys.task(scopeTag(scope), taskId);
  return toStoredTask(await send(ctx, ['HMGET', key, ...TASK_FIELDS], key));
}

export async function listTasks(ctx: RedisStoreContext, scope: Scope, query: TaskQuery): Promise<TaskPage> {
  const after = query.pageToken === undefined ? undefined : decodePageToken(query.pageToken);
  const flag = (v: unknown) => (v === undefined ? '0' : '1');
  const pageSize = Math.max(0, query.pageSize);
  const args = [
    flag(query.contextId),
    query.contextId ?? '',
    flag(query.status),
    query.status ?? '',
    flag(query.statusTimestampAfter),
    query.statusTimestampAfter ?? '',
    flag(after),
    after?.timestamp ?? '',
    after?.id ?? '',
    String(pageSize),
  ];
  const [total, rows] = list(await SCRIPTS.list.run(ctx.conn, [scopeBase(ctx, scope)], args));
  const records = list(rows ?? null).map((row) => toStoredTask(row)!);
  return toTaskPage(records, pageSize, replyInt(total));
}

export async function commit(
  ctx: RedisStoreContext,
  scope: Scope,
  taskId: string,
  write: TaskWrite,
): Promise<CommitResult> {
  checkLeaseGrant('commit', write.lease);
  const writeId = checkWriteId(write.writeId);
  const now = ctx.clock.now();
  const task = write.task;
  const lease = write.lease ? leaseAt(write.lease, now) : undefined;
  const args = [
    String(now),
    taskId,
    JSON.stringify(task),
    write.reply ? JSON.stringify(write.reply) : '',
    write.nextFence === undefined ? '' : String(write.nextFence),
    task.status.state,
    task.status.timestamp ?? '',
    task.contextId === undefined ? '0' : '1',
    task.contextId ?? '',
    isTerminalState(task.status.state) ? '1' : '0',
    String(write.expectFence),
    write.expectSeq === undefined ? '' : String(write.expectSeq),
    write.lease === undefined ? 'k' : write.lease === null ? 'c' : 's',
    lease?.owner ?? '',
    lease ? String(lease.expiresAt) : '',
    writeId ?? '',
    ...write.events.map((e) => JSON.stringify(e)),
  ];
  const r = list(await SCRIPTS.commit.run(ctx.conn, [scopeBase(ctx, scope)], args));
  if (r[0] === 'gone') return { ok: false, current: undefined };
  if (r[0] === 'refused') {
    const res = refusedOrLanded(write, toStoredTask(r[2] ?? null), replyString(r[1]));
    // A write that landed on an attempt whose answer was lost (a timed-out call, ADR 0127) woke nobody here then:
    // its waiters hear of it now, or they would wait for their poll.
    if (res.ok) ctx.notifier.notify(taskKey(scope, taskId), res.record);
    return res;
  }
  const [, kind, fence, seq, createdAt, updatedAt, leaseOwner, leaseExpires] = r;
  const record: { -readonly [K in keyof StoredTask]: StoredTask[K] } = {
    task,
    kind: kind === 'message' ? 'message' : 'task',
    fence: replyInt(fence),
    seq: replyInt(seq),
    createdAt: replyInt(createdAt),
    updatedAt: replyInt(updatedAt),
  };
  if (write.reply) record.reply = write.reply;
  if (typeof leaseOwner === 'string' && leaseExpires !== null && leaseExpires !== undefined)
    record.lease = { owner: leaseOwner, expiresAt: replyInt(leaseExpires) };
  ctx.notifier.notify(taskKey(scope, taskId), record);
  return { ok: true, record };
}
