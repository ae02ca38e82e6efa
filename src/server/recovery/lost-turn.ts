/**
 * What recovery reads from a task whose worker was lost (ADR 0037): whether its lease lapsed, which turn was
 * running (the message that started it, and whether it continued an interrupted task), how often it was
 * resumed already, and the status messages a takeover writes. Pure functions over the stored task.
 */
import type { JsonObject, Message, Task } from '../../protocol/model.js';
import type { StoredTask } from '../../store/records.js';

/**
 * The metadata entry on the status message a takeover writes: `resumed` or `failed`. Counting the `resumed`
 * ones in the history tells how many times the task was resumed, with nothing stored beside the task.
 */
export const RECOVERY_METADATA_KEY = 'a2a-once/recovery';

/** Whether the record is a running turn (SUBMITTED or WORKING task) whose lease lapsed at or before `now`. */
export function leaseLapsed(record: StoredTask, now: number): boolean {
  const lease = record.lease;
  if (lease === undefined || lease.expiresAt > now || record.kind !== 'task') return false;
  const state = record.task.status.state;
  return state === 'TASK_STATE_SUBMITTED' || state === 'TASK_STATE_WORKING';
}

/** The turn that was running: its user message (the latest in the history) and whether it was a continuation. */
export interface LostTurn {
  readonly message: Message;
  readonly isContinuation: boolean;
}

/**
 * The running turn of `task`: the latest user message started it (status messages in the history are the
 * agent's), and it continued the task when an earlier user message exists. Undefined when the history holds no
 * user message (a task created by other means than a send).
 */
export function lostTurnOf(task: Task): LostTurn | undefined {
  const history = task.history ?? [];
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    if (m.role !== 'ROLE_USER') continue;
    const isContinuation = history.slice(0, i).some((h) => h.role === 'ROLE_USER');
    return { message: m, isContinuation };
  }
  return undefined;
}

/** How many times the task was resumed after losing its worker (takeover messages in its history). */
export function resumesOf(task: Task): number {
  let n = 0;
  for (const m of task.history ?? []) if (m.metadata?.[RECOVERY_METADATA_KEY] === 'resumed') n++;
  return n;
}

/** Why a lost worker's task is not resumed. */
export type FailureReason = 'not-resumable' | 'too-many-resumes' | 'no-turn';

/** The status message text of a takeover. */
export function takeoverText(outcome: 'resumed' | FailureReason, resumes: number): string {
  const lost =
    'the worker running it was lost (its process stopped, or could not reach the task store) before it finished';
  switch (outcome) {
    case 'resumed':
      return `The task was resumed by another worker: ${lost}.`;
    case 'not-resumable':
      return `The task failed because ${lost}, and its agent cannot resume a task. Its work may have partly happened; check before sending it again.`;
    case 'too-many-resumes':
      return `The task failed because ${lost}, again, after it had been resumed ${resumes} time(s). Its work may have partly happened; check before sending it again.`;
    case 'no-turn':
      return `The task failed because ${lost}, and the message that started it is not in its history. Its work may have partly happened; check before sending it again.`;
  }
}

/** The metadata of a takeover's status message. */
export function takeoverMetadata(outcome: 'resumed' | 'failed'): JsonObject {
  return { [RECOVERY_METADATA_KEY]: outcome };
}
