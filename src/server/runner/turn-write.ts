/**
 * One write of a turn as the worker accepts it (a step over the task), and the fenced `TaskWrite` a slice of
 * them becomes: the steps folded over the stored task, their events in order, the lease released with the turn's
 * final write (ADR 0037, ADR 0048).
 */
import type { Message, StreamResponse, Task } from '../../protocol/model.js';
import type { TaskState } from '../../protocol/task-state.js';
import type { TaskWrite } from '../../store/task-store.js';

/** One accepted write: what it makes of the task, the event it appends, and the reply it carries, if any. */
export type WriteStep = (task: Task) => { task: Task; event: StreamResponse; reply?: Message };

/** A writable copy of a readonly record type, for building one field by field. */
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** `steps` applied in order to `task`, as one compare-and-set under `fence` carrying all their events. */
export function foldWrites(task: Task, steps: readonly WriteStep[], fence: number): TaskWrite {
  const events: StreamResponse[] = [];
  let reply: Message | undefined;
  for (const s of steps) {
    const next = s(task);
    task = next.task;
    events.push(next.event);
    if (next.reply) reply = next.reply;
  }
  const write: Mutable<TaskWrite> = { expectFence: fence, task, events };
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
