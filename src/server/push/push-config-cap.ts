/**
 * The cap on push configs per task (ADR 0032). A webhook per config means a delivery per event per config, so
 * an unbounded list lets one caller turn every event of a task into any number of outbound requests. The store
 * has no "insert if fewer than n" primitive, so the cap is kept in two steps:
 *   - in this process, creates for one task run one at a time (count, then insert), so they are exact;
 *   - against other processes sharing the store, a create checks again after inserting and keeps its config
 *     only if it is among the first `cap` in creation order (the order every store lists in). A config's rank
 *     only ever falls as older ones are deleted, so once every racer has checked, at most `cap` remain.
 * PostgreSQL may commit two concurrent inserts out of creation order, so a config inserted by another replica at
 * the same moment can slip in before one that already checked: there, each extra replica creating for the same
 * task at the same instant can add one config past the cap.
 */
import { PushConfigLimitError } from '../../protocol/errors.js';
import type { TaskPushNotificationConfig } from '../../protocol/requests.js';
import type { Scope } from '../../store/scope.js';
import type { TaskStore } from '../../store/task-store.js';

/** Push configs a task may have unless the server is told otherwise (`maxPushConfigsPerTask`). */
export const DEFAULT_MAX_PUSH_CONFIGS_PER_TASK = 16;

/** The tail of each task's queue of creates, per store: a store is shared by every handler built on it. */
const queues = new WeakMap<TaskStore, Map<string, Promise<unknown>>>();

/** Runs `f` after every earlier call for the same store and key has settled. */
function oneAtATime<T>(store: TaskStore, key: string, f: () => Promise<T>): Promise<T> {
  let byKey = queues.get(store);
  if (!byKey) {
    byKey = new Map<string, Promise<unknown>>();
    queues.set(store, byKey);
  }
  const before = byKey.get(key) ?? Promise.resolve();
  const run = before.then(f, f);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  byKey.set(key, tail);
  // The last one out removes the entry, so the map holds only tasks with a create in flight.
  void tail.then(() => {
    if (byKey.get(key) === tail) byKey.delete(key);
  });
  return run;
}

function limitReached(cap: number, taskId: string): PushConfigLimitError {
  return new PushConfigLimitError({
    message: `Task ${taskId} already has ${cap} push notification configs, the most this server allows; delete one first`,
    metadata: { limit: String(cap), taskId },
  });
}

/**
 * Stores `config` (which carries its id) for `taskId` unless that would give the task more than `cap` configs;
 * replacing an existing id never counts. Throws `PushConfigLimitError` (-32602 / 400) past the cap.
 */
export function putWithinCap(
  store: TaskStore,
  scope: Scope,
  taskId: string,
  config: TaskPushNotificationConfig,
  cap: number,
): Promise<void> {
  const id = config.id ?? '';
  const key = JSON.stringify([scope.tenant, scope.owner, taskId]);
  return oneAtATime(store, key, async () => {
    const existing = await store.listPushConfigs(scope, taskId);
    const replaces = existing.some((c) => c.id === id);
    if (!replaces && existing.length >= cap) throw limitReached(cap, taskId);
    await store.putPushConfig(scope, taskId, config);
    if (replaces) return;
    // Another process may have inserted meanwhile: keep ours only if it is within the first `cap`.
    const after = await store.listPushConfigs(scope, taskId);
    if (after.findIndex((c) => c.id === id) >= cap) {
      await store.deletePushConfig(scope, taskId, id);
      throw limitReached(cap, taskId);
    }
  });
}
