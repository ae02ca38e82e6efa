/**
 * `nextRecord` for the SQL stores: a blocking wait's fast path. A commit made through this store instance hands
 * the record it wrote to the waiters of its task, so a wait that a local worker settles costs one read (the check
 * when it starts) instead of the watch's reads of seq, events and task. Commits of other processes sharing the
 * store are seen by polling the task's row, as `watch` polls. Waiters of one task share their reads.
 */
import type { StoredTask } from '../records.js';
import { sleepUntilWoken, type EventNotifier } from './event-notifier.js';
import { linkSignals } from './poll-watch.js';

/** Options of the wait. */
export interface PollNextRecordOptions {
  readonly notifier: EventNotifier;
  /** The notifier key of the task. */
  readonly key: string;
  /** Longest wait between two reads when no local commit wakes the waiter. */
  readonly pollIntervalMs: number;
  /** The store's own signal (it is closing): ends the wait too. */
  readonly closing?: AbortSignal;
  /** The caller's record was just written by this process: skip the first read (`TaskStore.nextRecord`). */
  readonly fresh?: boolean;
}

/**
 * Resolves with the task's record once its seq is past `afterSeq` and `until` (when given) holds for it, at once
 * if it already does; with undefined when `signal` aborts or the task is gone.
 * @param read the task's record as stored now, or undefined when it no longer exists
 */
export async function pollNextRecord(
  read: () => Promise<StoredTask | undefined>,
  afterSeq: number,
  callerSignal: AbortSignal,
  until: ((record: StoredTask) => boolean) | undefined,
  options: PollNextRecordOptions,
): Promise<StoredTask | undefined> {
  const wanted = (r: StoredTask): boolean => r.seq > afterSeq && (until === undefined || until(r));
  const linked = linkSignals(callerSignal, options.closing);
  const signal = linked.signal;
  let skipRead = options.fresh === true;
  // Polls are a fallback (local commits hand their records over): they back off from the interval to 8 times it.
  let pollMs = options.pollIntervalMs;
  try {
    while (!signal.aborted) {
      // Registered before reading, so a commit between the read and the wait is not missed.
      let wake = options.notifier.wait(options.key);
      try {
        if (!skipRead) {
          const record = await options.notifier.shared(`${options.key}|record`, read);
          if (record === undefined) return undefined;
          if (wanted(record)) return record;
        }
        skipRead = false;
        for (;;) {
          let woken: StoredTask | undefined;
          const local = wake.promise.then((r) => (woken = r));
          await sleepUntilWoken(local, pollMs, signal);
          pollMs = Math.min(pollMs * 2, options.pollIntervalMs * 8);
          // A local commit hands its record: no read needed, unless it is not the one awaited yet.
          if (woken === undefined) break;
          if (wanted(woken)) return woken;
          wake.cancel();
          wake = options.notifier.wait(options.key);
        }
      } finally {
        wake.cancel();
      }
    }
    return undefined;
  } finally {
    linked.dispose();
  }
}
