/**
 * The in-memory store's data for one scope (tenant + owner): tasks with their event logs and push configs, the
 * scope's live keys and tombstones, and its listing. Kept apart from the store so the store file reads as the
 * contract.
 *
 * A scope is whatever the request says (ADR 0026), so an empty one must cost nothing: its maps and listing are
 * made on first use and dropped when they empty, and the store drops the partition itself once it holds nothing.
 */
import type { MemoryStepAttempt } from './memory-step-attempts.js';
import type { TaskPushNotificationConfig } from '../../protocol/requests.js';
import type { StoredTask } from '../records.js';
import type { MemoryPushCursor } from './memory-push.js';
import type { LogEntry } from './memory-event-log.js';
import type { ListedTasks } from './memory-list.js';
import type { LiveKey, Tombstone } from './memory-keys.js';
import type { OrderedQueue, Queued } from './ordered-queue.js';

/**
 * One task and what hangs off it. A class, so every entry has one shape from the start (fields added later to
 * an object literal would give entries several hidden classes).
 */
export class TaskEntry implements Queued<TaskEntry> {
  /** The event log in compact form (`memory-event-log.ts`); `events[i]` has seq i + 1. */
  readonly events: LogEntry[] = [];
  /** Created on first use: most tasks never get a push config (an empty Map costs more than the task's fields). */
  pushConfigs: Map<string, TaskPushNotificationConfig> | undefined = undefined;
  /** Where delivery to each push config stands, by config id (ADR 0045); made with the first config. */
  pushCursors: Map<string, MemoryPushCursor> | undefined = undefined;
  /** Wake-ups of `watch` iterators and blocking waits waiting for the next event or the task's removal. */
  waiters: Set<() => void> | undefined = undefined;
  /** Links in the store's queue of finished, interrupted or leased running tasks (`ordered-queue.ts`); or none. */
  older: TaskEntry | undefined = undefined;
  newer: TaskEntry | undefined = undefined;
  queue: OrderedQueue<TaskEntry> | undefined = undefined;
  /** Keys past their expiry that wait for this task to go, to become tombstones then (ADR 0025). Rarely any. */
  parkedKeys: LiveKey[] | undefined = undefined;
  /** Durable steps by name, each result kept as its JSON text (parsed afresh for every reader; ADR 0036). */
  steps: Map<string, RecordedStep> | undefined = undefined;
  /** The latest attempt of each durable step, by name (ADR 0121). */
  stepAttempts: Map<string, MemoryStepAttempt> | undefined = undefined;
  /** When the task's delegating parent last renewed its lease (ADR 0044); none until it first does. */
  parentRenewedAt: number | undefined = undefined;
  /** The `writeId` of the last write applied (ADR 0052): a retry of it is answered as landed. */
  lastWriteId: string | undefined = undefined;

  constructor(
    public record: StoredTask,
    readonly partition: MemoryPartition,
  ) {}
}

/** A durable step as the memory store keeps it. */
export interface RecordedStep {
  readonly text: string;
  readonly fence: number;
  readonly recordedAt: number;
}

/** One scope's tasks and keys. */
export class MemoryPartition {
  tasks: Map<string, TaskEntry> | undefined = undefined;
  /** Live keys (past their expiry too, while their task exists). */
  keys: Map<string, LiveKey> | undefined = undefined;
  tombstones: Map<string, Tombstone> | undefined = undefined;
  /** Task-kind records in ListTasks order (`memory-list.ts`). */
  listed: ListedTasks | undefined = undefined;
  /** Set when the store dropped this partition: a holder must look the scope up again before writing. */
  dropped = false;

  constructor(
    readonly scopeId: string,
    readonly tenant: string,
    readonly owner: string,
  ) {}

  /** Whether the partition holds nothing and can be dropped (tasks, keys AND tombstones gone). */
  get isEmpty(): boolean {
    return this.tasks === undefined && this.keys === undefined && this.tombstones === undefined;
  }
}

/**
 * Wakes every waiter of a task (new event, or removal). Waiters take themselves out of the set when they are
 * done, so a blocking wait stays registered across commits that do not settle it; a set left empty is dropped
 * (a finished task is kept for hours, and an empty Set is a large part of a small task's retained size).
 */
export function wake(entry: TaskEntry): void {
  const waiters = entry.waiters;
  if (!waiters) return;
  for (const w of waiters) w();
  if (waiters.size === 0 && entry.waiters === waiters) entry.waiters = undefined;
}

/** Registers a waiter of a task, woken by `wake`; it stays until `removeWaiter`. */
export function addWaiter(entry: TaskEntry, w: () => void): void {
  (entry.waiters ??= new Set()).add(w);
}

/** Takes a waiter out (a no-op if it is not registered), dropping the set once it is empty. */
export function removeWaiter(entry: TaskEntry, w: () => void): void {
  const waiters = entry.waiters;
  if (!waiters) return;
  waiters.delete(w);
  if (waiters.size === 0) entry.waiters = undefined;
}
