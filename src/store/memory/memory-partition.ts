/**
 * The in-memory store's data for one scope (tenant + owner): tasks with their event logs and push configs, and
 * the scope's idempotency keys. Kept apart from the store so the store file reads as the contract.
 */
import type { TaskPushNotificationConfig } from '../../protocol/requests.js';
import type { KeyRecord, StoredTask } from '../records.js';
import type { LogEntry } from './memory-event-log.js';
import type { Queued } from './terminal-queue.js';

/**
 * One task and what hangs off it. A class, so every entry has one shape from the start (fields added later to
 * an object literal would give entries several hidden classes).
 */
export class TaskEntry implements Queued<TaskEntry> {
  /** The event log in compact form (`memory-event-log.ts`); `events[i]` has seq i + 1. */
  readonly events: LogEntry[] = [];
  /** Created on first use: most tasks never get a push config (an empty Map costs more than the task's fields). */
  pushConfigs: Map<string, TaskPushNotificationConfig> | undefined = undefined;
  /** Wake-ups of `watch` iterators and blocking waits waiting for the next event or the task's removal. */
  waiters: Set<() => void> | undefined = undefined;
  /** Links of the store's queue of finished tasks (`terminal-queue.ts`). */
  older: TaskEntry | undefined = undefined;
  newer: TaskEntry | undefined = undefined;
  queued = false;

  constructor(
    public record: StoredTask,
    readonly partition: MemoryPartition,
  ) {}
}

/** One scope's tasks and keys. Maps keep insertion order, which the sweeps rely on. */
export class MemoryPartition {
  readonly tasks = new Map<string, TaskEntry>();
  /** Live keys in claim order (so in `expiresAt` order for a constant TTL). */
  readonly keys = new Map<string, KeyRecord>();
  /** Expired keys, in expiry order. */
  readonly tombstones = new Map<string, KeyRecord>();

  constructor(
    readonly scopeId: string,
    readonly tenant: string,
  ) {}

  /** Whether the partition holds nothing and can be dropped (tasks AND keys gone: a live key keeps it). */
  get isEmpty(): boolean {
    return this.tasks.size === 0 && this.keys.size === 0 && this.tombstones.size === 0;
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
