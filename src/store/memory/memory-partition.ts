/**
 * The in-memory store's data for one scope (tenant + owner): tasks with their event logs and push configs, and
 * the scope's idempotency keys. Kept apart from the store so the store file reads as the contract.
 */
import type { TaskPushNotificationConfig } from '../../protocol/requests.js';
import type { KeyRecord, StoredEvent, StoredTask } from '../records.js';

/** One task and what hangs off it. */
export interface TaskEntry {
  record: StoredTask;
  /** `events[i].seq === i + 1`. */
  readonly events: StoredEvent[];
  /** Created on first use: most tasks never get a push config (an empty Map costs more than the task's fields). */
  pushConfigs?: Map<string, TaskPushNotificationConfig>;
  /** Wake-ups of `watch` iterators waiting for the next event or the task's removal. */
  waiters?: Set<() => void>;
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

/** Wakes every waiter of a task (new event, or removal). */
export function wake(entry: TaskEntry): void {
  if (!entry.waiters || entry.waiters.size === 0) return;
  const waiters = [...entry.waiters];
  entry.waiters.clear();
  for (const w of waiters) w();
}
