/**
 * A task's events on Redis: read from its list (LRANGE), followed by `watch` and awaited by `nextRecord`. Both
 * hold the scope's wake-up channel (ADR 0118) while they wait; the poll is the safety net for a lost message.
 */
import type { StoredEvent, StoredTask } from '../../records.js';
import type { Scope } from '../../scope.js';
import { taskKey } from '../../sql/event-notifier.js';
import { pollNextRecord } from '../../sql/poll-next-record.js';
import { pollWatch } from '../../sql/poll-watch.js';
import { scopeTag } from '../redis-keys.js';
import { list, replyInt } from '../redis-records.js';
import { send, type RedisStoreContext } from './store-context.js';
import { getTask } from './tasks.js';

export async function readEvents(
  ctx: RedisStoreContext,
  scope: Scope,
  taskId: string,
  afterSeq: number,
): Promise<StoredEvent[]> {
  const from = Math.max(0, Math.floor(afterSeq));
  const key = ctx.keys.events(scopeTag(scope), taskId);
  const rows = list(await send(ctx, ['LRANGE', key, String(from), '-1'], key));
  return rows.map((e, i) => ({ seq: from + i + 1, event: JSON.parse(String(e)) as StoredEvent['event'] }));
}

export async function* watch(
  ctx: RedisStoreContext,
  scope: Scope,
  taskId: string,
  afterSeq: number,
  signal: AbortSignal,
): AsyncGenerator<StoredEvent> {
  const tag = scopeTag(scope);
  const key = ctx.keys.task(tag, taskId);
  const { release } = await ctx.wakeups.hold(tag);
  try {
    const source = {
      currentSeq: async () => {
        const seq = await send(ctx, ['HGET', key, 'q'], key);
        return seq === null ? undefined : replyInt(seq);
      },
      readEvents: (after: number) => readEvents(ctx, scope, taskId, after),
    };
    yield* pollWatch(source, afterSeq, signal, {
      closing: ctx.closing,
      notifier: ctx.notifier,
      key: taskKey(scope, taskId),
      pollIntervalMs: ctx.pollIntervalMs,
    });
  } finally {
    release();
  }
}

export async function nextRecord(
  ctx: RedisStoreContext,
  scope: Scope,
  taskId: string,
  afterSeq: number,
  signal: AbortSignal,
  until?: (record: StoredTask) => boolean,
  fresh?: boolean,
): Promise<StoredTask | undefined> {
  const { release, waited } = await ctx.wakeups.hold(scopeTag(scope));
  try {
    return await pollNextRecord(() => getTask(ctx, scope, taskId), afterSeq, signal, until, {
      closing: ctx.closing,
      notifier: ctx.notifier,
      key: taskKey(scope, taskId),
      pollIntervalMs: ctx.pollIntervalMs,
      // A commit made while the subscription was being set up woke nobody (no wait was registered yet): read.
      fresh: fresh === true && !waited,
    });
  } finally {
    release();
  }
}
