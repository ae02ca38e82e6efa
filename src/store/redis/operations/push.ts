/**
 * Push notifications on Redis: a task's configs (a hash per task, with the due index of their cursors kept by
 * the same scripts), and delivery: claiming due cursors across scopes, recording an attempt's outcome, reading
 * a cursor. Every write is one script in the scope's slot, fenced by the holder of the claim.
 */
import type { TaskPushNotificationConfig } from '../../../protocol/requests.js';
import {
  checkPushClaim,
  checkPushOutcome,
  type PushDelivery,
  type PushDeliveryState,
  type PushOutcome,
} from '../../push-delivery.js';
import type { Scope } from '../../scope.js';
import { scopeTag } from '../redis-keys.js';
import { list, replyInt, toPushDelivery, toPushState } from '../redis-records.js';
import { SCRIPTS } from '../redis-scripts.js';
import { scopeBase, send, type RedisStoreContext } from './store-context.js';

export async function putPushConfig(
  ctx: RedisStoreContext,
  scope: Scope,
  taskId: string,
  config: TaskPushNotificationConfig,
): Promise<void> {
  if (!config.id) return;
  await SCRIPTS.putConfig.run(ctx.conn, [scopeBase(ctx, scope)], [taskId, config.id, JSON.stringify(config)]);
}

export async function getPushConfig(
  ctx: RedisStoreContext,
  scope: Scope,
  taskId: string,
  id: string,
): Promise<TaskPushNotificationConfig | undefined> {
  const key = ctx.keys.pushConfigs(scopeTag(scope), taskId);
  const json = await send(ctx, ['HGET', key, id], key);
  return json === null ? undefined : (JSON.parse(String(json)) as TaskPushNotificationConfig);
}

export async function listPushConfigs(
  ctx: RedisStoreContext,
  scope: Scope,
  taskId: string,
): Promise<TaskPushNotificationConfig[]> {
  const r = list(await SCRIPTS.listConfigs.run(ctx.conn, [scopeBase(ctx, scope)], [taskId]));
  return r.map((json) => JSON.parse(String(json)) as TaskPushNotificationConfig);
}

export async function deletePushConfig(
  ctx: RedisStoreContext,
  scope: Scope,
  taskId: string,
  id: string,
): Promise<boolean> {
  return (await SCRIPTS.deleteConfig.run(ctx.conn, [scopeBase(ctx, scope)], [taskId, id])) === 1;
}

export async function claimPushDeliveries(
  ctx: RedisStoreContext,
  holder: string,
  claimMs: number,
  limit: number,
): Promise<PushDelivery[]> {
  checkPushClaim('claimPushDeliveries', holder, claimMs, limit);
  if (limit === 0) return [];
  const now = ctx.clock.now();
  const scopes = await ctx.scopes.scopes();
  const head = [holder, String(now + claimMs), String(now), String(limit)];
  const claimIn = async (tag: string, members: string[]) => {
    const base = ctx.keys.base(tag);
    const scope = scopes.find((s) => s.tag === tag)!.scope;
    const r = list(await SCRIPTS.claimPush.run(ctx.conn, [base], [...head, ...members]));
    return r.map((row) => toPushDelivery(scope, row));
  };
  if (scopes.length === 1) return claimIn(scopes[0]!.tag, []);
  // Several scopes: pick the oldest due over all of them, then claim those (each claim re-checks).
  const due = await Promise.all(
    scopes.map(async ({ tag }) => {
      const ix = `${ctx.keys.base(tag)}ix:push`;
      // RESP2 sends member, score, ...; RESP3 pairs of them: flattened, both read alike.
      const r = list(
        await send(
          ctx,
          ['ZRANGEBYSCORE', ix, '-inf', String(now), 'WITHSCORES', 'LIMIT', '0', String(limit)],
          ix,
        ),
      ).flat();
      const out: { tag: string; member: string; at: number }[] = [];
      for (let i = 0; i + 1 < r.length; i += 2) out.push({ tag, member: String(r[i]), at: Number(r[i + 1]) });
      return out;
    }),
  );
  const picked = due
    .flat()
    .sort((a, b) => a.at - b.at)
    .slice(0, limit);
  const byTag = new Map<string, string[]>();
  for (const p of picked) byTag.set(p.tag, [...(byTag.get(p.tag) ?? []), p.member]);
  const claimed = await Promise.all([...byTag].map(([tag, members]) => claimIn(tag, members)));
  return claimed.flat().sort((a, b) => a.nextAttemptAt - b.nextAttemptAt);
}

export async function recordPushDelivery(
  ctx: RedisStoreContext,
  scope: Scope,
  taskId: string,
  configId: string,
  holder: string,
  outcome: PushOutcome,
): Promise<boolean> {
  const error = checkPushOutcome('recordPushDelivery', holder, outcome) ?? '';
  const now = ctx.clock.now();
  const o = outcome as Partial<{
    seq: number;
    claimMs: number;
    retryAt: number;
    through: string;
    reason: string;
  }>;
  const args = [
    taskId,
    configId,
    holder,
    outcome.kind,
    String(o.seq ?? 0),
    String(now),
    String(now + (o.claimMs ?? 0)),
    error,
    String(o.retryAt ?? 0),
    o.through === 'backlog' ? 'b' : 'e',
    o.reason ?? '',
  ];
  return (await SCRIPTS.recordPush.run(ctx.conn, [scopeBase(ctx, scope)], args)) === 1;
}

export async function getPushDelivery(
  ctx: RedisStoreContext,
  scope: Scope,
  taskId: string,
  configId: string,
): Promise<PushDeliveryState | undefined> {
  const r = await SCRIPTS.pushState.run(ctx.conn, [scopeBase(ctx, scope)], [taskId, configId]);
  if (!Array.isArray(r)) return undefined;
  return toPushState(configId, replyInt(r[0]), r[1] ?? null);
}
