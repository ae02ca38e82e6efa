/**
 * Following a task through the store's event log: blocking waits and streams. Everything a caller sees comes
 * from the log, so every follower (the first caller, a retry on another replica, a subscriber) sees the same
 * events in the same order (A2A §3.5.2), and a retry follows the first attempt's task exactly as the first
 * caller would (SEMANTICS §2 "replay").
 */
import { linkSignals } from '../store/linked-signals.js';
import type { Message, StreamResponse } from '../protocol/model.js';
import { isTerminalState, type TaskState } from '../protocol/task-state.js';
import type { StoredEvent, StoredTask } from '../store/records.js';
import type { Scope } from '../store/scope.js';
import type { TaskStore } from '../store/task-store.js';
import { deadlineSignal } from './deadline-signal.js';
import { errorFields, logSafely } from './observability/error-log.js';
import { silentLogger, type ServerLogger } from './observability/logger.js';
import { applyArtifactUpdate, applyStatusUpdate } from './task-events.js';

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
 * Never throws: a timeout answers with the snapshot it has, and so does a store error (a dropped connection, a
 * busy database), because the send was admitted and its work may be running: a definite failure would be a lie
 * the caller acts on (ADR 0029). The error is logged as a warning with the task id.
 */
export async function waitFor(
  store: TaskStore,
  scope: Scope,
  record: StoredTask,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  goal: WaitGoal = 'settled',
  logger: ServerLogger = silentLogger,
  /** `record` was just created by this process (see `TaskStore.nextRecord`). */
  fresh = false,
): Promise<StoredTask> {
  if (goal === 'settled' ? isSettled(record) : record.seq > 0 || isSettled(record)) return record;
  // A shared deadline signal: no per-request AbortController on the hot path (see deadline-signal.ts). Leaving
  // the loop after an event needs no abort: the watch is then suspended at its yield and `return()` ends it.
  const deadline = deadlineSignal(timeoutMs);
  // Linked, not `AbortSignal.any` (tens of microseconds a call on Node 20), and unlinked when the wait is over.
  const linked = linkSignals(deadline, signal);
  const stop = linked.signal;
  // Events seen on the polling path, folded into the answer only if the store fails (see `latestSeen`).
  let seen: StoredEvent[] | undefined;
  try {
    if (store.nextRecord) {
      // In-process fast path: one wake-up for the whole wait, with the record itself rather than events.
      const latest = await store.nextRecord(
        scope,
        record.task.id,
        record.seq,
        stop,
        goal === 'settled' ? isSettled : undefined,
        fresh,
      );
      if (latest) return latest;
    } else {
      for await (const stored of store.watch(scope, record.task.id, record.seq, stop)) {
        (seen ??= []).push(stored);
        if (goal === 'first-event' || settles(stored.event)) break;
      }
    }
    return (await store.getTask(scope, record.task.id)) ?? record;
  } catch (err) {
    const latest = latestSeen(record, seen);
    logSafely(logger, 'warn', 'store failed while a send waited; answering with the latest known state', {
      taskId: record.task.id,
      seq: latest.seq,
      ...errorFields(err),
    });
    return latest;
  } finally {
    linked.dispose();
  }
}

/**
 * The record as of the last event a wait saw: the snapshot at seq s is the fold of events 1..s over the created
 * task (ADR 0006), so folding what the wait read after `record` gives what a read at that seq would have.
 */
function latestSeen(record: StoredTask, seen: readonly StoredEvent[] | undefined): StoredTask {
  if (!seen || seen.length === 0) return record;
  let task = record.task;
  let reply: Message | undefined;
  for (const { event } of seen) {
    if ('statusUpdate' in event) task = applyStatusUpdate(task, event.statusUpdate);
    else if ('artifactUpdate' in event) task = applyArtifactUpdate(task, event.artifactUpdate);
    else if ('message' in event) reply = event.message;
  }
  const seq = seen[seen.length - 1]!.seq;
  return reply ? { ...record, task, kind: 'message', reply, seq } : { ...record, task, seq };
}

/**
 * The base sequence of a stream that `followTask` serves from `record` (ADR 0124): its snapshot is the task as of
 * `record.seq`, and its log events come after. A direct-reply record's stream is only its reply, event
 * `record.seq` itself, so its base is the one before.
 */
export function streamBase(record: StoredTask): number {
  return record.kind === 'message' && record.reply ? record.seq - 1 : record.seq;
}

/**
 * A stream over a task from a snapshot: the snapshot (or, for a direct-reply outcome, the single message),
 * then every event after `record.seq`, until an event that ends the stream or `signal` aborts.
 * With `resumeAfter` (a stream resumed by Last-Event-ID, ADR 0125) there is no snapshot: the caller has the task
 * as of that sequence, and gets exactly the log's events after it, replayed and then live, with no seam between
 * the two (one watch from that sequence reads both).
 * A store read that fails mid-way ends the stream, logged as a warning with the task id, and no error event: an
 * error frame would tell the caller the work failed, while a cut stream is ambiguous, which is the truth; the
 * client re-attaches and the event log gives it what it missed (ADR 0029).
 * @param endAtSettledSnapshot end right after the snapshot when it is already terminal or INPUT_REQUIRED (a
 *   replayed stream ends like the original did); subscriptions keep waiting instead.
 */
export async function* followTask(
  store: TaskStore,
  scope: Scope,
  record: StoredTask,
  endAtSettledSnapshot: boolean,
  signal: AbortSignal | undefined,
  logger: ServerLogger = silentLogger,
  resumeAfter?: number,
): AsyncGenerator<StreamResponse> {
  const ctl = new AbortController();
  const onAbort = () => ctl.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  let events: AsyncIterator<StoredEvent> | undefined;
  const from = resumeAfter ?? record.seq;
  let lastSeq = from;
  // The next stored event, or undefined when the watch ended, the signal aborted or the store failed.
  const next = async (): Promise<StoredEvent | undefined> => {
    try {
      events ??= store.watch(scope, record.task.id, from, ctl.signal)[Symbol.asyncIterator]();
      const r = await events.next();
      if (r.done) return undefined;
      lastSeq = r.value.seq;
      return r.value;
    } catch (err) {
      if (ctl.signal.aborted) return undefined;
      logSafely(logger, 'warn', 'store failed while following a task; ending the stream', {
        taskId: record.task.id,
        seq: lastSeq,
        ...errorFields(err),
      });
      return undefined;
    }
  };
  try {
    if (resumeAfter !== undefined) {
      // Resumed: the caller's stream already began with the snapshot; it continues at the next event.
    } else if (record.seq === 0 && record.kind === 'task') {
      // Nothing emitted yet: the agent's first output decides between a task stream and a single message.
      const first = await next();
      if (!first) return;
      if ('message' in first.event) {
        yield first.event;
        return;
      }
      yield { task: record.task };
      yield first.event;
      if (isStreamEnd(first.event)) return;
    } else if (record.kind === 'message') {
      if (record.reply) yield { message: record.reply };
      return;
    } else {
      yield { task: record.task };
      if (endAtSettledSnapshot && endsStream(record.task.status.state)) return;
    }
    for (;;) {
      const stored = await next();
      if (!stored) return;
      yield stored.event;
      if (isStreamEnd(stored.event)) return;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    // A constant reason: aborting without one builds a DOMException every time.
    ctl.abort(STREAM_ENDED);
  }
}
