/**
 * Following a task through the store's event log: blocking waits and streams. Everything a caller sees comes
 * from the log, so every follower (the first caller, a retry on another replica, a subscriber) sees the same
 * events in the same order (A2A §3.5.2), and a retry follows the first attempt's task exactly as the first
 * caller would (SEMANTICS §2 "replay").
 */
import type { StreamResponse } from '../protocol/model.js';
import { isTerminalState, type TaskState } from '../protocol/task-state.js';
import type { StoredTask } from '../store/records.js';
import type { Scope } from '../store/scope.js';
import type { TaskStore } from '../store/task-store.js';
import { deadlineSignal } from './deadline-signal.js';

const STREAM_ENDED = 'stream ended';

/** Where a stream closes (digest §1.5, as `@a2a-js/sdk`): terminal or INPUT_REQUIRED; AUTH_REQUIRED stays open. */
export function endsStream(state: TaskState): boolean {
  return isTerminalState(state) || state === 'TASK_STATE_INPUT_REQUIRED';
}

/** Whether an event closes a stream. */
export function isStreamEnd(event: StreamResponse): boolean {
  if ('message' in event) return true;
  if ('statusUpdate' in event) return endsStream(event.statusUpdate.status.state);
  return false;
}

/** Whether an event settles a blocking send: terminal or interrupted, or a direct message (A2A §3.2.2). */
function settles(event: StreamResponse): boolean {
  if ('message' in event) return true;
  if ('statusUpdate' in event) {
    const s = event.statusUpdate.status.state;
    return isTerminalState(s) || s === 'TASK_STATE_INPUT_REQUIRED' || s === 'TASK_STATE_AUTH_REQUIRED';
  }
  return false;
}

/** Whether a record is settled for a blocking caller. */
export function isSettled(record: StoredTask): boolean {
  if (record.kind === 'message') return true;
  const s = record.task.status.state;
  return isTerminalState(s) || s === 'TASK_STATE_INPUT_REQUIRED' || s === 'TASK_STATE_AUTH_REQUIRED';
}

/** What a wait waits for: the task to settle (a blocking send), or its first report (returnImmediately). */
export type WaitGoal = 'settled' | 'first-event';

/**
 * Waits from `record` (seq included) until the goal is reached (settled: terminal, interrupted, or a direct
 * reply; first-event: anything reported), the timeout passes or `signal` aborts, and returns the latest record.
 * Never throws for a timeout: the caller answers with the snapshot it has.
 */
export async function waitFor(
  store: TaskStore,
  scope: Scope,
  record: StoredTask,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  goal: WaitGoal = 'settled',
): Promise<StoredTask> {
  if (goal === 'settled' ? isSettled(record) : record.seq > 0 || isSettled(record)) return record;
  // A shared deadline signal: no per-request AbortController on the hot path (see deadline-signal.ts). Leaving
  // the loop after an event needs no abort: the watch is then suspended at its yield and `return()` ends it.
  const deadline = deadlineSignal(timeoutMs);
  const stop = signal ? AbortSignal.any([deadline, signal]) : deadline;
  if (store.nextRecord) {
    // In-process fast path: one wake-up for the whole wait, with the record itself rather than events.
    const latest = await store.nextRecord(
      scope,
      record.task.id,
      record.seq,
      stop,
      goal === 'settled' ? isSettled : undefined,
    );
    if (latest) return latest;
  } else {
    for await (const { event } of store.watch(scope, record.task.id, record.seq, stop)) {
      if (goal === 'first-event' || settles(event)) break;
    }
  }
  return (await store.getTask(scope, record.task.id)) ?? record;
}

/**
 * A stream over a task from a snapshot: the snapshot (or, for a direct-reply outcome, the single message),
 * then every event after `record.seq`, until an event that ends the stream or `signal` aborts.
 * @param endAtSettledSnapshot end right after the snapshot when it is already terminal or INPUT_REQUIRED (a
 *   replayed stream ends like the original did); subscriptions keep waiting instead.
 */
export async function* followTask(
  store: TaskStore,
  scope: Scope,
  record: StoredTask,
  endAtSettledSnapshot: boolean,
  signal: AbortSignal | undefined,
): AsyncGenerator<StreamResponse> {
  const ctl = new AbortController();
  const onAbort = () => ctl.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const events = store.watch(scope, record.task.id, record.seq, ctl.signal)[Symbol.asyncIterator]();
    if (record.seq === 0 && record.kind === 'task') {
      // Nothing emitted yet: the agent's first output decides between a task stream and a single message.
      const first = await events.next();
      if (first.done) return;
      if ('message' in first.value.event) {
        yield first.value.event;
        return;
      }
      yield { task: record.task };
      yield first.value.event;
      if (isStreamEnd(first.value.event)) return;
    } else if (record.kind === 'message') {
      if (record.reply) yield { message: record.reply };
      return;
    } else {
      yield { task: record.task };
      if (endAtSettledSnapshot && endsStream(record.task.status.state)) return;
    }
    for (;;) {
      const next = await events.next();
      if (next.done) return;
      yield next.value.event;
      if (isStreamEnd(next.value.event)) return;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    // A constant reason: aborting without one builds a DOMException every time.
    ctl.abort(STREAM_ENDED);
  }
}
