/**
 * Idempotency keys on Redis: the claim-and-create of a keyed send (one script, ADR 0115), a claim of a key for
 * a task that exists, reading a key, and releasing a claim or a key. Each write is one script in the scope's slot.
 */
import { createdTaskRecord, deriveColumns } from '../../sql/sql-rows.js';
import { StoreError } from '../../sql/store-error.js';
import { AT_CAP_EXPIRY_BUDGET } from '../../sql/key-count-cache.js';
import { checkLeaseGrant, leaseAt } from '../../sql/worker-lease.js';
import { taskKey } from '../../sql/event-notifier.js';
import type { KeyRecord } from '../../records.js';
import type { Scope } from '../../scope.js';
import {
  claimDigest,
  type ClaimKeyInput,
  type ClaimKeyResult,
  type CreateTaskInput,
  type CreateTaskResult,
  type KeyClaimPolicy,
} from '../../task-store.js';
import type { RedisReply } from '../redis-connection.js';
import { scopeTag } from '../redis-keys.js';
import { KEY_FIELDS, list, toKeyRecord, toStoredTask } from '../redis-records.js';
import { SCRIPTS } from '../redis-scripts.js';
import { scopeBase, send, type RedisStoreContext } from './store-context.js';

function claimArgs(
  ctx: RedisStoreContext,
  claim: NonNullable<CreateTaskInput['claim']>,
  policy: KeyClaimPolicy,
): string[] {
  return [
    claim.key,
    claim.messageId,
    claimDigest(claim),
    String(claim.expiresAt),
    String(policy.maxKeysPerScope ?? -1),
    policy.onExpiredKey === 'replace' ? '1' : '0',
    String(ctx.tombstoneTtlMs),
    String(AT_CAP_EXPIRY_BUDGET),
  ];
}

function refusal(r: RedisReply[], key: string): Exclude<ClaimKeyResult, { outcome: 'claimed' }> {
  if (r[0] === 'capacity') return { outcome: 'capacity' };
  const record = toKeyRecord(key, r[1] ?? null)!;
  return r[0] === 'held' ? { outcome: 'held', key: record } : { outcome: 'expired', key: record };
}

export async function createTask(
  ctx: RedisStoreContext,
  scope: Scope,
  input: CreateTaskInput,
): Promise<CreateTaskResult> {
  checkLeaseGrant('createTask', input.lease);
  const now = ctx.clock.now();
  const tag = scopeTag(scope);
  await ctx.scopes.ensure(tag);
  const task = input.task;
  const d = deriveColumns(task, 'task');
  const lease = input.lease ? leaseAt(input.lease, now) : undefined;
  const claim = input.claim;
  const configs = (input.pushConfigs ?? []).filter((p) => p.id);
  const args = [
    String(now),
    task.id,
    JSON.stringify(task),
    d.statusState,
    d.statusTs,
    d.contextId === null ? '0' : '1',
    d.contextId ?? '',
    d.terminal ? '1' : '0',
    lease?.owner ?? '',
    lease ? String(lease.expiresAt) : '',
    task.history?.[0]?.messageId ?? '',
    claim ? '1' : '0',
    ...(claim ? claimArgs(ctx, claim, input) : ['', '', '', '', '-1', '0', '0', '0']),
    String(configs.length),
    ...configs.flatMap((p) => [p.id!, JSON.stringify(p)]),
  ];
  const r = list(await SCRIPTS.create.run(ctx.conn, [ctx.keys.base(tag)], args));
  if (r[0] === 'created') return { outcome: 'created', record: createdTaskRecord(task, now, lease) };
  if (r[0] === 'landed')
    return { outcome: 'created', record: toStoredTask(r[1] ?? null)!, landedEarlier: true };
  if (r[0] === 'exists') throw new StoreError('TASK_EXISTS', `task ${task.id} already exists in this scope`);
  return refusal(r, claim!.key);
}

export async function claimKey(
  ctx: RedisStoreContext,
  scope: Scope,
  input: ClaimKeyInput,
): Promise<ClaimKeyResult> {
  const now = ctx.clock.now();
  const tag = scopeTag(scope);
  await ctx.scopes.ensure(tag);
  const claim = input.claim;
  const args = [String(now), input.taskId, ...claimArgs(ctx, claim, input)];
  const r = list(await SCRIPTS.claimKey.run(ctx.conn, [ctx.keys.base(tag)], args));
  if (r[0] !== 'claimed') return refusal(r, claim.key);
  const key: KeyRecord = {
    key: claim.key,
    messageId: claim.messageId,
    digest: args[4]!,
    taskId: input.taskId,
    createdAt: now,
    expiresAt: claim.expiresAt,
    tombstone: false,
  };
  return { outcome: 'claimed', key };
}

export async function getKey(
  ctx: RedisStoreContext,
  scope: Scope,
  key: string,
): Promise<KeyRecord | undefined> {
  const name = ctx.keys.key(scopeTag(scope), key);
  return toKeyRecord(key, await send(ctx, ['HMGET', name, ...KEY_FIELDS], name));
}

export async function releaseClaim(
  ctx: RedisStoreContext,
  scope: Scope,
  taskId: string,
  key: string | undefined,
): Promise<boolean> {
  const r = await SCRIPTS.releaseClaim.run(ctx.conn, [scopeBase(ctx, scope)], [taskId, key ?? '']);
  if (r !== 1) return false;
  ctx.notifier.notify(taskKey(scope, taskId));
  return true;
}

export async function releaseKey(
  ctx: RedisStoreContext,
  scope: Scope,
  key: string,
  taskId: string,
  messageId: string,
): Promise<boolean> {
  return (await SCRIPTS.releaseKey.run(ctx.conn, [scopeBase(ctx, scope)], [key, taskId, messageId])) === 1;
}
