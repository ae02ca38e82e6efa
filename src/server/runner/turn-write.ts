/**
 * One write of a turn as the worker accepts it (a step over the task): what each report of the agent (a status,
 * an artifact, a direct reply) makes of the task and which event it appends; and the fenced `TaskWrite` a slice
 * of them becomes: the steps folded over the stored task, their events in order, the lease released with the
 * turn's final write (ADR 0037, ADR 0048). A step runs when its slice is stored, against the task as stored.
 */
import { isoAt } from '../../protocol/iso-time.js';
import type {
  Artifact,
  JsonObject,
  Message,
  StreamResponse,
  Task,
  TaskArtifactUpdateEvent,
  TaskStatus,
  TaskStatusUpdateEvent,
} from '../../protocol/model.js';
import type { TaskState } from '../../protocol/task-state.js';
import type { Clock } from '../../store/clock.js';
import type { TaskWrite } from '../../store/task-store.js';
import type { ArtifactChunkOptions, StatusMessageInit } from '../agent-executor.js';
import { applyArtifactUpdate, applyStatusUpdate } from '../task-events.js';
import { agentMessage } from './message-init.js';

/** One accepted write: what it makes of the task, the event it appends, and the reply it carries, if any. */
export type WriteStep = (task: Task) => { task: Task; event: StreamResponse; reply?: Message };

/** The task a step writes to: the ids every event carries. */
export interface StepTask {
  readonly taskId: string;
  readonly contextId: string;
}

/** A status update to `state`, with the agent's message and metadata, stamped when it is stored. */
export function statusStep(
  t: StepTask,
  clock: Clock,
  state: TaskState,
  message: StatusMessageInit | undefined,
  metadata: JsonObject | undefined,
): WriteStep {
  return (task) => {
    // Built without `...(cond ? {…} : {})`, which allocates an object even when it adds nothing.
    const timestamp = isoAt(clock.now());
    const status: TaskStatus =
      message === undefined
        ? { state, timestamp }
        : { state, message: agentMessage(message, t.taskId, t.contextId), timestamp };
    const ev: TaskStatusUpdateEvent = { taskId: t.taskId, contextId: t.contextId, status };
    if (metadata) ev.metadata = metadata;
    return { task: applyStatusUpdate(task, ev), event: { statusUpdate: ev } };
  };
}

/** An artifact update (a whole artifact, or a chunk of one). */
export function artifactStep(t: StepTask, artifact: Artifact, options: ArtifactChunkOptions): WriteStep {
  return (task) => {
    const ev: TaskArtifactUpdateEvent = { taskId: t.taskId, contextId: t.contextId, artifact };
    if (options.append) ev.append = true;
    if (options.lastChunk) ev.lastChunk = true;
    return { task: applyArtifactUpdate(task, ev), event: { artifactUpdate: ev } };
  };
}

/**
 * A direct reply (the first turn's only output). The record also reads as a completed task whose status message
 * is the reply, for a caller that was handed the task id before the agent chose to reply (returnImmediately).
 */
export function replyStep(clock: Clock, message: Message): WriteStep {
  return (task) => ({
    task: {
      ...task,
      status: { state: 'TASK_STATE_COMPLETED', message, timestamp: isoAt(clock.now()) },
      history: [...(task.history ?? []), message],
    },
    event: { message },
    reply: message,
  });
}

/** A writable copy of a readonly record type, for building one field by field. */
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** `steps` applied in order to `task`, as one compare-and-set under `fence` carrying all their events. */
export function foldWrites(
  task: Task,
  steps: readonly WriteStep[],
  fence: number,
  writeId?: string,
): TaskWrite {
  const events: StreamResponse[] = [];
  let reply: Message | undefined;
  for (const s of steps) {
    const next = s(task);
    task = next.task;
    events.push(next.event);
    if (next.reply) reply = next.reply;
  }
  const write: Mutable<TaskWrite> = { expectFence: fence, task, events };
  if (writeId !== undefined) write.writeId = writeId;
  if (reply) write.reply = reply;
  // The turn's final write (finished, interrupted, a direct reply) releases the lease with it (ADR 0037).
  if (reply || !isRunning(task.status.state)) write.lease = null;
  return write;
}

/** Whether a turn in `state` is still running (its lease must be kept). */
export function isRunning(state: TaskState): boolean {
  return state === 'TASK_STATE_SUBMITTED' || state === 'TASK_STATE_WORKING';
}

/** What a write carries, for its log lines. */
export function writeKind(event: StreamResponse): string {
  if ('statusUpdate' in event) return `status ${event.statusUpdate.status.state}`;
  if ('artifactUpdate' in event) return 'artifact';
  return 'reply';
}

/** The last-resort write that ends a task FAILED after a lost write (ADR 0029): no lease, `text` as the message. */
export function failedStatusWrite(
  current: Task,
  failed: {
    readonly taskId: string;
    readonly contextId: string;
    readonly fence: number;
    readonly text: string;
  },
  now: number,
  writeId: string,
): TaskWrite {
  const status: TaskStatus = {
    state: 'TASK_STATE_FAILED',
    message: agentMessage(failed.text, failed.taskId, failed.contextId),
    timestamp: isoAt(now),
  };
  const ev: TaskStatusUpdateEvent = { taskId: failed.taskId, contextId: failed.contextId, status };
  return {
    expectFence: failed.fence,
    task: applyStatusUpdate(current, ev),
    events: [{ statusUpdate: ev }],
    lease: null,
    writeId,
  };
}
