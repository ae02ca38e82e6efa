/**
 * Rows as both SQL backends read them, and their mapping to the store records. Times are epoch-ms integers;
 * pg returns BIGINT as a string and PGlite as a number, so every integer goes through `toInt`.
 */
import type { Message, StreamResponse, Task } from '../../protocol/model.js';
import type { TaskPushNotificationConfig } from '../../protocol/requests.js';
import { TASK_STATES, isTerminalState } from '../../protocol/task-state.js';
import { isInterruptedState } from '../abandon.js';
import { RUNNING_STATES } from './worker-lease.js';
import type {
  KeyRecord,
  LapsedTask,
  LeaseCensus,
  StepRecord,
  StoredEvent,
  StoredTask,
  TaskLease,
} from '../records.js';
import { stepRecord } from './step-input.js';

/** A row of `a2a_tasks` (the columns the stores select). */
export interface TaskRow {
  kind: unknown;
  task: unknown;
  reply: unknown;
  fence: unknown;
  seq: unknown;
  created_at: unknown;
  updated_at: unknown;
  /** Both NULL while no worker holds the task (schema version 3 on). */
  lease_owner: unknown;
  lease_expires_at: unknown;
}

/** A row of `findLapsedLeases`: the task's scope and id, and its record's columns. */
export interface LapsedRow extends TaskRow {
  tenant: unknown;
  owner: unknown;
  id: unknown;
}

/** A row of `a2a_steps`. */
export interface StepRow {
  task_id: unknown;
  name: unknown;
  result: unknown;
  fence: unknown;
  recorded_at: unknown;
}

/** A row of `a2a_keys`. */
export interface KeyRow {
  key: unknown;
  message_id: unknown;
  digest: unknown;
  task_id: unknown;
  created_at: unknown;
  expires_at: unknown;
  tombstone: unknown;
  /** NULL while the key is live (schema version 2 on). */
  tombstoned_at: unknown;
}

/** A row of `a2a_events`. */
export interface EventRow {
  seq: unknown;
  event: unknown;
}

/** Column list of `TaskRow`, for SELECTs. */
export const TASK_COLUMNS =
  'kind, task, reply, fence, seq, created_at, updated_at, lease_owner, lease_expires_at';
/** Column list of `StepRow`. */
export const STEP_COLUMNS = 'task_id, name, result, fence, recorded_at';
/** Column list of `KeyRow`. */
export const KEY_COLUMNS =
  'key, message_id, digest, task_id, created_at, expires_at, tombstone, tombstoned_at';

/** An integer column as a JS number (BIGINT arrives as a string from pg). */
export function toInt(value: unknown): number {
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(n)) throw new TypeError(`expected an integer column, got ${String(value)}`);
  return n;
}

/** A JSON column: stored as TEXT, but a driver with a json type parser may hand us the object already. */
export function fromJson<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/** A boolean column: SQLite stores 0/1, PostgreSQL a real boolean. */
export function toBool(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 't';
}

/** The record of a task a SQL store just inserted: fence 1, no event yet, and the lease it was created with. */
export function createdTaskRecord(task: Task, now: number, lease: TaskLease | undefined): StoredTask {
  return lease
    ? { task, kind: 'task', fence: 1, seq: 0, createdAt: now, updatedAt: now, lease }
    : { task, kind: 'task', fence: 1, seq: 0, createdAt: now, updatedAt: now };
}

/** Maps a task row to its record. */
export function toStoredTask(row: TaskRow): StoredTask {
  const record: { -readonly [K in keyof StoredTask]: StoredTask[K] } = {
    task: fromJson<Task>(row.task),
    kind: row.kind === 'message' ? 'message' : 'task',
    fence: toInt(row.fence),
    seq: toInt(row.seq),
    createdAt: toInt(row.created_at),
    updatedAt: toInt(row.updated_at),
  };
  // Set by assignment, not spread in (object spread is the slow path, ADR 0050). Only a message record carries
  // `reply`, and only a held task `lease` (as the memory store's records do), so a leaseless one compares equal.
  if (row.reply !== null && row.reply !== undefined) record.reply = fromJson<Message>(row.reply);
  const lease = toLease(row.lease_owner, row.lease_expires_at);
  if (lease) record.lease = lease;
  return record;
}

/** The lease columns as a lease, or undefined when no worker holds the task. */
export function toLease(owner: unknown, expiresAt: unknown): TaskLease | undefined {
  // A TEXT column: NULL (no lease) arrives as null, a held lease's owner as a string.
  if (typeof owner !== 'string' || expiresAt === null || expiresAt === undefined) return undefined;
  return { owner, expiresAt: toInt(expiresAt) };
}

/**
 * Maps a row of `findLapsedLeases`: its scope and id, and the record read with it (ADR 0131). Its lease columns
 * are never NULL (the query selects on them); a row without would be a store bug, and is refused loudly.
 */
export function toLapsedTask(row: LapsedRow): LapsedTask {
  const record = toStoredTask(row);
  const lease = record.lease;
  if (lease === undefined) throw new TypeError('findLapsedLeases read a row without a lease');
  return {
    tenant: String(row.tenant),
    owner: String(row.owner),
    taskId: String(row.id),
    fence: record.fence,
    lease,
    record,
  };
}

/** Maps a step row to its record (the result column is the step's JSON text). */
export function toStepRecord(row: StepRow): StepRecord {
  return stepRecord(
    String(row.task_id),
    String(row.name),
    String(row.result),
    toInt(row.fence),
    toInt(row.recorded_at),
  );
}

/** Maps a key row to its record. */
export function toKeyRecord(row: KeyRow): KeyRecord {
  const tombstone = toBool(row.tombstone);
  const record: KeyRecord = {
    key: String(row.key),
    messageId: String(row.message_id),
    digest: String(row.digest),
    taskId: String(row.task_id),
    createdAt: toInt(row.created_at),
    expiresAt: toInt(row.expires_at),
    tombstone,
  };
  // Only tombstones carry the field (as the memory store's records do), so a live key compares equal anywhere.
  const at = row.tombstoned_at;
  return tombstone && at !== null && at !== undefined ? { ...record, tombstonedAt: toInt(at) } : record;
}

/** `held` as the tombstone a claim just turned it into at `now`. */
export function asTombstone(held: KeyRecord, now: number): KeyRecord {
  return { ...held, tombstone: true, tombstonedAt: now };
}

/** Maps an event row. */
export function toStoredEvent(row: EventRow): StoredEvent {
  return { seq: toInt(row.seq), event: fromJson<StreamResponse>(row.event) };
}

/** Maps a push-config column. */
export function toPushConfig(value: unknown): TaskPushNotificationConfig {
  return fromJson<TaskPushNotificationConfig>(value);
}

/**
 * The running states as a SQL list, `('A', 'B')`, for the lapsed-lease query and its partial index. Derived from
 * the predicate every store uses, so SQL and memory agree about which leased tasks are recoverable.
 */
export const RUNNING_STATES_SQL = `(${RUNNING_STATES.map((s) => `'${s}'`).join(', ')})`;

/** The columns derived from a task for indexing: what ListTasks filters on and what retention sweeps. */
export interface DerivedColumns {
  readonly statusState: string;
  /** '' when the status has no timestamp, so it sorts last (as the memory store does). */
  readonly statusTs: string;
  readonly contextId: string | null;
  /** Finished: terminal state, or a direct-message record. Only finished records are purged. */
  readonly terminal: boolean;
}

/** Derives the indexed columns of a task write. */
export function deriveColumns(task: Task, kind: 'task' | 'message'): DerivedColumns {
  return {
    statusState: task.status.state,
    statusTs: task.status.timestamp ?? '',
    contextId: task.contextId ?? null,
    terminal: kind === 'message' || isTerminalState(task.status.state),
  };
}

/**
 * The interrupted states as a SQL list, `('A', 'B')`, for the abandoned phase of retention. Derived from the one
 * predicate every store uses, so the SQL can never disagree with the memory store about which tasks qualify.
 */
export const INTERRUPTED_STATES_SQL = `(${TASK_STATES.filter(isInterruptedState)
  .map((s) => `'${s}'`)
  .join(', ')})`;

/** Whether a key still holds its claim: not a tombstone, and unexpired or its task still exists (docs/semantics.md §2). */
export function isKeyLive(key: KeyRecord, taskExists: boolean, now: number): boolean {
  return !key.tombstone && (key.expiresAt > now || taskExists);
}

/** The row of `leaseCensus`: a count and a minimum, which drivers may hand back as text (PostgreSQL bigint). */
export interface CensusRow {
  readonly held: number | string | bigint;
  readonly first_expires_at: number | string | bigint | null;
}

/** Maps the row of `leaseCensus`. */
export function censusOf(row: CensusRow | undefined): LeaseCensus {
  const held = Number(row?.held ?? 0);
  const first = row?.first_expires_at;
  return held === 0 || first === null || first === undefined
    ? { held }
    : { held, firstExpiresAt: Number(first) };
}
