/**
 * Ending an interrupted task that nobody continued (docs/semantics.md §6 "Abandoned tasks"). An INPUT_REQUIRED or
 * AUTH_REQUIRED task holds its key for as long as it exists, and retention only collects terminal tasks, so a
 * task that waits forever would hold its key forever. Retention ends it instead: CANCELED (nobody is working on
 * it and nobody will; FAILED would say the agent broke), with a status message saying why, written like any
 * other status change so followers see it and a late continuation is refused as terminal (ADR 0024).
 *
 * Every store builds the write with this one function, so the three backends produce the same task and event.
 */
import { isoAt } from '../protocol/iso-time.js';
import type { Message, StreamResponse, Task } from '../protocol/model.js';
import type { TaskState } from '../protocol/task-state.js';
import type { StoredTask } from './records.js';

/** The states an abandoned task can be in. */
export function isInterruptedState(state: TaskState): boolean {
  return state === 'TASK_STATE_INPUT_REQUIRED' || state === 'TASK_STATE_AUTH_REQUIRED';
}

/** Whether `record` is an interrupted task last written at or before `cutoff` (epoch ms). */
export function isAbandoned(record: StoredTask, cutoff: number): boolean {
  return record.kind === 'task' && isInterruptedState(record.task.status.state) && record.updatedAt <= cutoff;
}

/** The task and event that end an abandoned task at `now`; the write goes in under fence + 1. */
export function abandonedTaskWrite(task: Task, now: number): { task: Task; event: StreamResponse } {
  const contextId = task.contextId ?? '';
  const waited = task.status.state === 'TASK_STATE_AUTH_REQUIRED' ? 'authorization' : 'input';
  const message: Message = {
    messageId: `${task.id}:abandoned`,
    role: 'ROLE_AGENT',
    parts: [
      {
        text: `Task ended by retention: it waited for ${waited} since ${task.status.timestamp ?? 'an unknown time'} and nobody continued it.`,
      },
    ],
    contextId,
    taskId: task.id,
  };
  const status = { state: 'TASK_STATE_CANCELED' as const, message, timestamp: isoAt(now) };
  return {
    task: { ...task, status, history: [...(task.history ?? []), message] },
    event: { statusUpdate: { taskId: task.id, contextId, status } },
  };
}
