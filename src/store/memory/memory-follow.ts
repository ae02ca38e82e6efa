/**
 * Followers of a task in the in-memory store: `watch` (streams) and `nextRecord` (blocking waits). Both read the
 * task's own event log and wake on its commits through the entry's waiter set (ADR 0006, ADR 0023): a follower
 * registers once, a commit wakes it, and a task's removal wakes it to find the task gone. The task is looked up
 * afresh on each wake, so a task removed (and its id reused) is never mistaken for the one followed.
 */
import type { StoredEvent, StoredTask } from '../records.js';
import type { Scope } from '../scope.js';
import { fromLogEntry } from './memory-event-log.js';
import { addWaiter, removeWaiter, type TaskEntry } from './memory-partition.js';
import type { MemoryState } from './memory-state.js';

function taskOf(state: MemoryState, scope: Scope, taskId: string): TaskEntry | undefined {
  return state.partition(scope)?.tasks?.get(taskId);
}

/** Events with seq > `afterSeq`, as they are committed, until `signal` aborts or the task goes. */
export async function* watchEvents(
  state: MemoryState,
  scope: Scope,
  taskId: string,
  afterSeq: number,
  signal: AbortSignal,
): AsyncIterable<StoredEvent> {
  let next = Math.max(0, afterSeq);
  // One abort listener per watch, not one per wait: EventTarget bookkeeping costs more than the wait itself.
  let wakeUp: (() => void) | undefined;
  const onAbort = () => wakeUp?.();
  signal.addEventListener('abort', onAbort, { once: true });
  let entry: TaskEntry | undefined;
  try {
    while (!signal.aborted) {
      entry = taskOf(state, scope, taskId);
      if (!entry) return;
      while (next < entry.events.length) {
        const event = fromLogEntry(entry.events[next]!, entry.record.task);
        yield { seq: ++next, event };
        if (signal.aborted) return;
      }
      const waiting = entry;
      await new Promise<void>((resolve) => {
        wakeUp = resolve;
        addWaiter(waiting, resolve);
      });
      // Woken by a commit or by the abort: either way, out of the set.
      if (wakeUp) removeWaiter(waiting, wakeUp);
      wakeUp = undefined;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    if (wakeUp && entry) removeWaiter(entry, wakeUp);
  }
}

/**
 * The task's record once its seq is past `afterSeq` and `until` holds for it (at once if that is already so);
 * undefined when `signal` aborts or the task goes.
 */
export function nextRecordOf(
  state: MemoryState,
  scope: Scope,
  taskId: string,
  afterSeq: number,
  signal: AbortSignal,
  until?: (record: StoredTask) => boolean,
): Promise<StoredTask | undefined> {
  const entry = taskOf(state, scope, taskId);
  if (!entry || signal.aborted) return Promise.resolve(undefined);
  const ready = (r: StoredTask) => r.seq > afterSeq && (until === undefined || until(r));
  if (ready(entry.record)) return Promise.resolve(entry.record);
  return new Promise((resolve) => {
    // One registration for the whole wait: a commit that does not make the record ready leaves it in place.
    const done = () => {
      const gone = taskOf(state, scope, taskId) !== entry;
      if (!gone && !signal.aborted && !ready(entry.record)) return;
      removeWaiter(entry, done);
      signal.removeEventListener('abort', done);
      resolve(gone || signal.aborted ? undefined : entry.record);
    };
    addWaiter(entry, done);
    signal.addEventListener('abort', done, { once: true });
  });
}
