/**
 * What a store keeps: task records with their fence and event sequence, idempotency-key records, and events.
 * Records handed out by a store are snapshots; callers must treat them as immutable (the in-memory store returns
 * its own objects to avoid copying on the hot path).
 */
import type { Message, StreamResponse, Task } from '../protocol/model.js';

/** A task as stored, with the bookkeeping the duplicate-safety contract needs. */
export interface StoredTask {
  /** The A2A task, with full history and artifacts. */
  readonly task: Task;
  /**
   * `message` when the agent answered with a bare Message instead of a task: the record then exists only so a
   * keyed retry replays that message; it is invisible to GetTask and ListTasks.
   */
  readonly kind: 'task' | 'message';
  /** The agent's direct reply, when `kind` is `message`. */
  readonly reply?: Message;
  /** Fencing token: raised on every continuation, cancel and takeover; every write compares it (SEMANTICS §4). */
  readonly fence: number;
  /** Sequence number of the last event appended for this task (0 before any event). */
  readonly seq: number;
  /** Epoch ms of creation and of the last write. */
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** An idempotency key as the store holds it (SEMANTICS §2). */
export interface KeyRecord {
  readonly key: string;
  readonly messageId: string;
  /** Digest of the message that claimed the key (canonical JSON without volatile fields). */
  readonly digest: string;
  readonly taskId: string;
  readonly createdAt: number;
  /** From this instant the key may expire, but only once its task is gone: a key never expires before its task. */
  readonly expiresAt: number;
  /** True once the key has expired: only its existence is remembered, so a late retry is refused as expired. */
  readonly tombstone: boolean;
}

/** One event of a task's log. `seq` increases by one per event, per task, assigned once when stored. */
export interface StoredEvent {
  readonly seq: number;
  readonly event: StreamResponse;
}
