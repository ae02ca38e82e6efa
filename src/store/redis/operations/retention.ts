/**
 * Retention on Redis (ADR 0119): each batch runs scope by scope over the registry, in the SQL stores' order
 * (terminal tasks, abandoned interrupted tasks, expired keys, old tombstones), each step one script in the
 * scope's slot; an empty scope is forgotten once idle. Also the store-wide live key count.
 */
import { abandonedTaskWrite, isAbandoned } from '../../abandon.js';
import type { PurgeReport, RetentionPolicy } from '../../retention.js';
import type { Scope } from '../../scope.js';
import { taskKey } from '../../sql/event-notifier.js';
import { runPurge } from '../../sql/purge-loop.js';
import { list, replyInt } from '../redis-records.js';
import { SCRIPTS } from '../redis-scripts.js';
import { send, type RedisStoreContext } from './store-context.js';
import { commit, getTask } from './tasks.js';

interface PurgeCutoffs {
  readonly now: number;
  readonly taskCutoff: number;
  readonly abandonCutoff: number | null;
  readonly tombCutoff: number;
}

export function purgeExpired(ctx: RedisStoreContext, policy: RetentionPolicy): Promise<PurgeReport> {
  const now = ctx.clock.now();
  const cut: PurgeCutoffs = {
    now,
    taskCutoff: now - policy.terminalMaxAgeMs,
    abandonCutoff: policy.interruptedMaxAgeMs === undefined ? null : now - policy.interruptedMaxAgeMs,
    tombCutoff: now - (policy.tombstoneMaxAgeMs ?? ctx.tombstoneTtlMs),
  };
  let scopes: { tag: string; scope: Scope }[] = [];
  return runPurge(policy, {
    prepare: async () => {
      scopes = await ctx.scopes.scopes();
    },
    runBatch: async (limit) => {
      const total = { tasks: 0, abandoned: 0, keys: 0, tombstones: 0 };
      const active: typeof scopes = [];
      let left = limit;
      for (const s of scopes) {
        if (left <= 0) {
          active.push(s);
          continue;
        }
        const r = await purgeScope(ctx, s.tag, s.scope, cut, left);
        const n = r.tasks + r.abandoned + r.keys + r.tombstones;
        total.tasks += r.tasks;
        total.abandoned += r.abandoned;
        total.keys += r.keys;
        total.tombstones += r.tombstones;
        left -= n;
        // A scope that did less than it was allowed has nothing left for this purge.
        if (left <= 0) active.push(s);
        else if (r.empty) await ctx.scopes.forgetIfIdle(s.tag);
      }
      scopes = active;
      return total;
    },
    hasPurgeable: async () => {
      const args = [
        String(cut.taskCutoff),
        cut.abandonCutoff === null ? '' : String(cut.abandonCutoff),
        String(cut.now),
        String(cut.tombCutoff),
      ];
      for (const { tag } of await ctx.scopes.scopes()) {
        if ((await SCRIPTS.purgeRemains.run(ctx.conn, [ctx.keys.base(tag)], args)) === 1) return true;
      }
      return false;
    },
  });
}

/** One scope's share of a retention batch, in the SQL stores' order: tasks, abandoned tasks, keys, tombstones. */
async function purgeScope(
  ctx: RedisStoreContext,
  tag: string,
  scope: Scope,
  cut: PurgeCutoffs,
  limit: number,
) {
  const base = ctx.keys.base(tag);
  const gone = list(await SCRIPTS.purgeTasks.run(ctx.conn, [base], [String(cut.taskCutoff), String(limit)]));
  // Deleted tasks end their watches.
  for (const id of gone) ctx.notifier.notify(taskKey(scope, String(id)));
  let left = limit - gone.length;
  let abandoned = 0;
  if (left > 0 && cut.abandonCutoff !== null) {
    abandoned = await endAbandoned(ctx, scope, base, cut.abandonCutoff, cut.now, left);
    left -= abandoned;
  }
  let keys = 0;
  let tombstones = 0;
  let empty = false;
  if (left > 0) {
    const args = [String(cut.now), String(cut.tombCutoff), String(left), String(ctx.tombstoneTtlMs)];
    const r = list(await SCRIPTS.purgeKeys.run(ctx.conn, [base], args));
    keys = replyInt(r[0]);
    tombstones = replyInt(r[1]);
    empty = r[2] === 1;
  }
  return { tasks: gone.length, abandoned, keys, tombstones, empty };
}

/**
 * Ends up to `limit` abandoned interrupted tasks with the shared write (abandon.ts), each a compare-and-set on
 * the fence and seq read: a continuation that committed first makes it miss, and it is not counted.
 */
async function endAbandoned(
  ctx: RedisStoreContext,
  scope: Scope,
  base: string,
  cutoff: number,
  now: number,
  limit: number,
): Promise<number> {
  const ix = `${base}ix:intr`;
  const ids = list(
    await send(ctx, ['ZRANGEBYSCORE', ix, '-inf', String(cutoff), 'LIMIT', '0', String(limit)], ix),
  );
  let ended = 0;
  for (const id of ids.map(String)) {
    const cur = await getTask(ctx, scope, id);
    if (!cur || !isAbandoned(cur, cutoff)) continue;
    const end = abandonedTaskWrite(cur.task, now);
    const write = {
      expectFence: cur.fence,
      expectSeq: cur.seq,
      nextFence: cur.fence + 1,
      task: end.task,
      events: [end.event],
    };
    if ((await commit(ctx, scope, id, write)).ok) ended++;
  }
  return ended;
}

/** Live (unexpired, not tombstoned) keys over every scope. */
export async function countLiveKeys(ctx: RedisStoreContext): Promise<number> {
  let n = 0;
  for (const { tag } of await ctx.scopes.scopes())
    n += replyInt(await SCRIPTS.liveKeys.run(ctx.conn, [ctx.keys.base(tag)], []));
  return n;
}
