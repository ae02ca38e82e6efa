/**
 * Builders for the in-memory store's own tests: a store on a ManualClock, keyed tasks in a given state, a retry,
 * and a way to run the amortised sweep without reaching into the store (it runs on every 64th creation or claim).
 */
import type { TaskState } from '../../../src/protocol/task-state.js';
import { ManualClock } from '../../../src/store/clock.js';
import { MemoryTaskStore, type MemoryTaskStoreOptions } from '../../../src/store/memory/index.js';
import type { Scope } from '../../../src/store/scope.js';
import type { CreateTaskResult } from '../../../src/store/task-store.js';
import { claimOf, makeTask, withState } from '../../store-contract/fixtures/tasks.js';

export {
  ALICE,
  BOB,
  HOUR,
  OTHER_TENANT,
  claimOf,
  keyOf,
  makeTask,
  userMessage,
  withState,
} from '../../store-contract/fixtures/tasks.js';

export const DAY = 24 * 3_600_000;

/** A fresh store on its own ManualClock. */
export function memoryStore(options: MemoryTaskStoreOptions = {}): {
  store: MemoryTaskStore;
  clock: ManualClock;
} {
  const clock = new ManualClock();
  return { clock, store: new MemoryTaskStore({ clock, ...options }) };
}

/** Creates task `id` in `scope` claiming `key` (when given) and, unless `state` is SUBMITTED, commits it there. */
export async function taskIn(
  store: MemoryTaskStore,
  scope: Scope,
  id: string,
  state: TaskState,
  key?: { key: string; expiresAt: number },
): Promise<void> {
  const task = makeTask(id);
  const created = await store.createTask(scope, {
    task,
    ...(key ? { claim: claimOf(key.key, `m-${id}`, key.expiresAt) } : {}),
  });
  if (created.outcome !== 'created') throw new Error(`could not create ${id}: ${created.outcome}`);
  if (state === 'TASK_STATE_SUBMITTED') return;
  const r = await store.commit(scope, id, { expectFence: 1, task: withState(task, state), events: [] });
  if (!r.ok) throw new Error(`could not commit ${id}`);
}

let retries = 0;

/** What a retry presenting `key` in `scope` gets now; a fresh task id each time, so `created` is visible. */
export async function retry(
  store: MemoryTaskStore,
  scope: Scope,
  key: string,
): Promise<CreateTaskResult['outcome']> {
  const r = await store.createTask(scope, {
    task: makeTask(`retry-${++retries}`),
    claim: claimOf(key, 'm-retry', 0),
  });
  return r.outcome;
}

/** A scope no test uses for anything else: where `sweepOnce` makes its throwaway tasks. */
export const SWEEPER: Scope = { tenant: 'sweeper', owner: '' };

/**
 * Runs the amortised sweep exactly once: it runs on every 64th creation or claim, so 64 creations contain exactly
 * one. Each throwaway task is released at once, so nothing of it stays behind.
 */
export async function sweepOnce(store: MemoryTaskStore): Promise<void> {
  for (let i = 0; i < 64; i++) {
    const id = `sweep-${++retries}`;
    const r = await store.createTask(SWEEPER, { task: makeTask(id) });
    if (r.outcome !== 'created') throw new Error(`sweep helper could not create a task: ${r.outcome}`);
    await store.releaseClaim(SWEEPER, id, undefined);
  }
}
