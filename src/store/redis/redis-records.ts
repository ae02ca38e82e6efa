/**
 * Replies of the Redis store's scripts and reads, mapped to the store records: a task's fields as `taskFields`
 * returns them (j k r f q c u lo le), a key's (m d t c e tb ta), a push cursor's (cursorReply in lua/lua-prelude.ts).
 */
import type { Message, Task } from '../../protocol/model.js';
import type { PushDelivery, PushDeliveryState } from '../push-delivery.js';
import type { KeyRecord, StepRecord, StoredTask } from '../records.js';
import type { Scope } from '../scope.js';
import { stepRecord } from '../sql/step-input.js';
import type { RedisReply } from './redis-connection.js';

/** The fields `taskFields` reads, in order. */
export const TASK_FIELDS = ['j', 'k', 'r', 'f', 'q', 'c', 'u', 'lo', 'le'] as const;
/** The fields `keyFields` reads, in order. */
export const KEY_FIELDS = ['m', 'd', 't', 'c', 'e', 'tb', 'ta'] as const;

/** A reply as an array (nil as empty). */
export function list(reply: RedisReply): RedisReply[] {
  return Array.isArray(reply) ? reply : [];
}

function str(v: RedisReply | undefined): string | undefined {
  return v === null || v === undefined ? undefined : String(v);
}

function int(v: RedisReply | undefined): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n))
    throw new TypeError(`the Redis store read a number it did not write: ${String(v)}`);
  return n;
}

/** A task record from its fields, or undefined when the task is not there. */
export function toStoredTask(reply: RedisReply): StoredTask | undefined {
  const v = list(reply);
  const json = str(v[0]);
  if (json === undefined) return undefined;
  const record: { -readonly [K in keyof StoredTask]: StoredTask[K] } = {
    task: JSON.parse(json) as Task,
    kind: v[1] === 'message' ? 'message' : 'task',
    fence: int(v[3]),
    seq: int(v[4]),
    createdAt: int(v[5]),
    updatedAt: int(v[6]),
  };
  const reply_ = str(v[2]);
  if (reply_ !== undefined) record.reply = JSON.parse(reply_) as Message;
  const owner = str(v[7]);
  if (owner !== undefined && v[8] !== null && v[8] !== undefined)
    record.lease = { owner, expiresAt: int(v[8]) };
  return record;
}

/** A key record from its fields, or undefined when the key is not there. */
export function toKeyRecord(key: string, reply: RedisReply): KeyRecord | undefined {
  const v = list(reply);
  const taskId = str(v[2]);
  if (taskId === undefined) return undefined;
  const record: KeyRecord = {
    key,
    messageId: str(v[0]) ?? '',
    digest: str(v[1]) ?? '',
    taskId,
    createdAt: int(v[3]),
    expiresAt: int(v[4]),
    tombstone: v[5] === '1',
  };
  return record.tombstone ? { ...record, tombstonedAt: int(v[6]) } : record;
}

/** A cursor as `cursorReply` returns it, with the task's seq. */
export function toPushState(configId: string, taskSeq: number, reply: RedisReply): PushDeliveryState {
  const [ds, at, na, fs, le, gu, gf, gt, ga, gr] = list(reply);
  return {
    configId,
    deliveredSeq: int(ds),
    taskSeq,
    attempts: int(at),
    nextAttemptAt: int(na),
    ...(fs === null || fs === undefined ? {} : { failingSince: int(fs) }),
    ...(le === null || le === undefined ? {} : { lastError: String(le) }),
    givenUpEvents: int(gu),
    ...(ga === null || ga === undefined
      ? {}
      : { lastGiveUp: { fromSeq: int(gf), throughSeq: int(gt), at: int(ga), reason: String(gr) } }),
  };
}

/** A claimed cursor as `claim-push` returns it: {task id, config id, config JSON, task seq, cursor}. */
export function toPushDelivery(scope: Scope, reply: RedisReply): PushDelivery {
  const [taskId, configId, config, seq, cursor] = list(reply);
  return {
    ...toPushState(String(configId), int(seq), cursor ?? null),
    scope,
    taskId: String(taskId),
    config: JSON.parse(String(config)) as PushDelivery['config'],
  };
}

/** A step as stored: `<fence>|<at>|<result JSON>`. */
export function toStepRecord(taskId: string, name: string, value: string): StepRecord {
  const a = value.indexOf('|');
  const b = value.indexOf('|', a + 1);
  return stepRecord(taskId, name, value.slice(b + 1), int(value.slice(0, a)), int(value.slice(a + 1, b)));
}

export { int as replyInt, str as replyString };
