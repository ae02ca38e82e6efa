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
  /** Fencing token: raised on every continuation, cancel and takeover; every write compares it (docs/semantics.md §4). */
  readonly fence: number;
  /** Sequence number of the last event appended for this task (0 before any event). */
  readonly seq: number;
  /** Epoch ms of creation and of the last write. */
  readonly createdAt: number;
  readonly updatedAt: number;
  /**
   * The worker lease (docs/semantics.md §4): which worker runs the task's current turn and until when, unless it
   * renews. Undefined when no turn is running (the task is interrupted or finished, or was created without one).
   * A SUBMITTED or WORKING task whose lease lapsed lost its worker and is recovered (`findLapsedLeases`).
   */
  readonly lease?: TaskLease;
}

/** A worker's hold on a task's current turn. */
export interface TaskLease {
  /** The worker's name (process and turn): only it may renew. */
  readonly owner: string;
  /** Epoch ms (store clock) at which the lease lapses unless renewed. */
  readonly expiresAt: number;
}

/** The recorded result of a durable step (`ctx.step`): written once per task and name, under a fence. */
export interface StepRecord {
  readonly taskId: string;
  readonly name: string;
  /** The JSON result `fn` returned, exactly as recorded. */
  readonly result: unknown;
  /** The fencing token of the worker that recorded it. */
  readonly fence: number;
  readonly recordedAt: number;
}

/** A SUBMITTED or WORKING task whose lease lapsed: its worker is presumed lost. */
export interface LapsedTask {
  readonly tenant: string;
  readonly owner: string;
  readonly taskId: string;
  readonly fence: number;
  /** The lease that lapsed. */
  readonly lease: TaskLease;
  /**
   * The task as the listing read it, in the same read as `fence` and `lease` (so `record.fence` is `fence` and
   * `record.lease` is `lease`): recovery takes the task over from it, pinned to its fence and seq, without reading
   * it again (ADR 0131). A write made since the listing moved the seq or the fence, so a takeover built from
   * this record is refused and recovery sees the task as changed.
   */
  readonly record: StoredTask;
}

/** The running tasks whose lease has not lapsed yet, over every scope (`TaskStore.leaseCensus`). */
export interface LeaseCensus {
  /** SUBMITTED or WORKING tasks under a lease that has not lapsed. */
  readonly held: number;
  /** When the first of those leases lapses (epoch ms, the store's clock); absent when `held` is 0. */
  readonly firstExpiresAt?: number;
}

/** An idempotency key as the store holds it (docs/semantics.md §2). */
export interface KeyRecord {
  readonly key: string;
  readonly messageId: string;
  /**
   * Digest of the message that claimed the key (canonical JSON without volatile fields). May be '' on a tombstone:
   * nothing compares a message with a tombstone, so a store need not keep it (the memory store does not, ADR 0026).
   */
  readonly digest: string;
  readonly taskId: string;
  readonly createdAt: number;
  /** From this instant the key may expire, but only once its task is gone: a key never expires before its task. */
  readonly expiresAt: number;
  /** True once the key has expired: only its existence is remembered, so a late retry is refused as expired. */
  readonly tombstone: boolean;
  /**
   * Epoch ms at which the key became a tombstone (set exactly when `tombstone` is true). A tombstone's age is
   * counted from here, never from `expiresAt`: a key can sit expired for days while its task still exists, and
   * the tombstone must still live its whole TTL after the task is gone (docs/semantics.md §6).
   */
  readonly tombstonedAt?: number;
}

/** One event of a task's log. `seq` increases by one per event, per task, assigned once when stored. */
export interface StoredEvent {
  readonly seq: number;
  readonly event: StreamResponse;
}
