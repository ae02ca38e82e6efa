/**
 * Rows as both SQL backends read them, and their mapping to the store records. Times are epoch-ms integers;
 * pg returns BIGINT as a string and PGlite as a number, so every integer goes through `toInt`.
 */
import type { Message, StreamResponse, Task } from '../../protocol/model.js';
import type { TaskPushNotificationConfig } from '../../protocol/requests.js';
import { isTerminalState } from '../../protocol/task-state.js';
import type { KeyRecord, StoredEvent, StoredTask } from '../records.js';

/** A row of `a2a_tasks` (the columns the stores select). */
export interface TaskRow {
  kind: unknown;
  task: unknown;
  reply: unknown;
  fence: unknown;
  seq: unknown;
  created_at: unknown;
  updated_at: unknown;
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
}

/** A row of `a2a_events`. */
export interface EventRow {
  seq: unknown;
  event: unknown;
}

/** Column list of `TaskRow`, for SELECTs. */
export const TASK_COLUMNS = 'kind, task, reply, fence, seq, created_at, updated_at';
/** Column list of `KeyRow`. */
export const KEY_COLUMNS = 'key, message_id, digest, task_id, created_at, expires_at, tombstone';

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

/** Maps a task row to its record. */
export function toStoredTask(row: TaskRow): StoredTask {
  const reply = row.reply === null || row.reply === undefined ? undefined : fromJson<Message>(row.reply);
  return {
    task: fromJson<Task>(row.task),
    kind: row.kind === 'message' ? 'message' : 'task',
    ...(reply ? { reply } : {}),
    fence: toInt(row.fence),
    seq: toInt(row.seq),
    createdAt: toInt(row.created_at),
    updatedAt: toInt(row.updated_at),
  };
}

/** Maps a key row to its record. */
export function toKeyRecord(row: KeyRow): KeyRecord {
  return {
    key: String(row.key),
    messageId: String(row.message_id),
    digest: String(row.digest),
    taskId: String(row.task_id),
    createdAt: toInt(row.created_at),
    expiresAt: toInt(row.expires_at),
    tombstone: toBool(row.tombstone),
  };
}

/** Maps an event row. */
export function toStoredEvent(row: EventRow): StoredEvent {
  return { seq: toInt(row.seq), event: fromJson<StreamResponse>(row.event) };
}

/** Maps a push-config column. */
export function toPushConfig(value: unknown): TaskPushNotificationConfig {
  return fromJson<TaskPushNotificationConfig>(value);
}

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

/** Whether a key still holds its claim: not a tombstone, and unexpired or its task still exists (SEMANTICS §2). */
export function isKeyLive(key: KeyRecord, taskExists: boolean, now: number): boolean {
  return !key.tombstone && (key.expiresAt > now || taskExists);
}
