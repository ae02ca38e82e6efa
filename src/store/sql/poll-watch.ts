/**
 * `watch` for the SQL stores: poll the task's sequence number, read what is new, and sleep until a local commit,
 * the poll interval or the abort, whichever comes first. Sequence numbers are assigned under the task's write
 * lock and committed with the task row, so once seq N is visible every event up to N is too: reading
 * `seq > next` in order can neither skip nor repeat an event.
 */
import type { StoredEvent } from '../records.js';
import { linkSignals } from '../linked-signals.js';
import { sleepUntilWoken, type EventNotifier } from './event-notifier.js';

// Re-exported for the stores that import them from here.
export { linkSignals, unlimitedListeners } from '../linked-signals.js';

/** Where the watch loop reads from. */
export interface WatchSource {
  /** The task's current seq, or undefined when the task no longer exists (the watch then ends). */
  currentSeq(): Promise<number | undefined>;
  /** Events with `seq > afterSeq`, in order. */
  readEvents(afterSeq: number): Promise<StoredEvent[]>;
}

/** Options of the watch loop. */
export interface PollWatchOptions {
  readonly notifier: EventNotifier;
  /** The notifier key of the task. */
  readonly key: string;
  /** Longest wait between two reads when no local commit wakes the watcher. */
  readonly pollIntervalMs: number;
  /** The store's own signal (it is closing): ends the watch too. */
  readonly closing?: AbortSignal;
}

/** Yields events after `afterSeq` in order, without gaps or duplicates, until the signal aborts or the task goes. */
export async function* pollWatch(
  source: WatchSource,
  afterSeq: number,
  callerSignal: AbortSignal,
  options: PollWatchOptions,
): AsyncGenerator<StoredEvent> {
  const linked = linkSignals(callerSignal, options.closing);
  const signal = linked.signal;
  try {
    yield* watchLoop(source, afterSeq, signal, options);
  } finally {
    linked.dispose();
  }
}

async function* watchLoop(
  source: WatchSource,
  afterSeq: number,
  signal: AbortSignal,
  options: PollWatchOptions,
): AsyncGenerator<StoredEvent> {
  let next = Math.max(0, afterSeq);
  while (!signal.aborted) {
    const wake = options.notifier.wait(options.key);
    try {
      const seq = await options.notifier.shared(`${options.key}|seq`, () => source.currentSeq());
      if (seq === undefined) return;
      if (seq > next) {
        const from = next;
        const events = await options.notifier.shared(`${options.key}|after|${from}`, () =>
          source.readEvents(from),
        );
        for (const e of events) {
          // Defensive: never yield out of order. A gap cannot happen (see above); re-read if it ever did.
          if (e.seq !== next + 1) break;
          next = e.seq;
          yield e;
          if (signal.aborted) return;
        }
        continue;
      }
      await sleepUntilWoken(wake.promise, options.pollIntervalMs, signal);
    } finally {
      wake.cancel();
    }
  }
}
