/**
 * Where the receiver gets a task's snapshot when events are missing: an `A2AClient` of the agent that sends the
 * webhooks (GetTask, retried as a read), or any function that returns the task.
 */
import type { Task } from '../protocol/model.js';

/** Anything with GetTask: an `A2AClient` from `a2a-once/client` fits. */
export interface TaskReader {
  getTask(id: string): Promise<Task>;
}

/** An `A2AClient` (or anything with `getTask`), or a function from task id to task. */
export type TaskSource = TaskReader | ((taskId: string) => Promise<Task>);

/** GetTask could not give the snapshot (the delivery is answered 502, and the sender retries it). */
export class GapRepairError extends Error {
  readonly code = 'GAP_REPAIR_FAILED';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GapRepairError';
  }
}

/** The task `taskId`, as the source reports it now. */
export async function fetchSnapshot(source: TaskSource, taskId: string): Promise<Task> {
  let task: Task;
  try {
    task = typeof source === 'function' ? await source(taskId) : await source.getTask(taskId);
  } catch (err) {
    throw new GapRepairError(`GetTask failed for the task of a webhook with missing events`, { cause: err });
  }
  if (task.id !== taskId)
    throw new GapRepairError('GetTask answered with another task than the one asked for');
  return task;
}
