/**
 * The lifecycle guard (docs/semantics.md §3): a message that names an
 * existing task is a retry of a message the task already has (replay), a legal continuation (the task waits for
 * input), or an illegal reuse (the task is busy or finished). Pure: it decides, admission acts.
 */
import {
  IdempotencyKeyReusedError,
  InvalidParamsError,
  TaskNotFoundError,
  UnsupportedOperationError,
  type A2AError,
} from '../../protocol/errors.js';
import type { Message } from '../../protocol/model.js';
import { isInterruptedState, isTerminalState } from '../../protocol/task-state.js';
import type { StoredTask } from '../../store/records.js';

/** The guard's verdict. */
export type GuardVerdict =
  | { readonly kind: 'replay' }
  | { readonly kind: 'continue' }
  | { readonly kind: 'refuse'; readonly error: A2AError };

/**
 * Decides what `message` (which names `record`'s task) is.
 * @param digestOf digest of a message with the task's ids filled in, so an as-sent retry and the stored copy compare equal
 */
export function guardExistingTask(
  record: StoredTask | undefined,
  message: Message,
  digestOf: (m: Message) => string,
): GuardVerdict {
  if (!record || record.kind !== 'task') return { kind: 'refuse', error: new TaskNotFoundError() };
  const task = record.task;
  if (message.contextId !== undefined && message.contextId !== task.contextId) {
    return {
      kind: 'refuse',
      error: new InvalidParamsError({
        message: `Invalid parameters: message.contextId does not match the context of task ${task.id}`,
        metadata: { taskId: task.id },
      }),
    };
  }
  const seen = task.history?.find((m) => m.messageId === message.messageId);
  if (seen) {
    const sent = { ...message, contextId: task.contextId, taskId: task.id } as Message;
    if (digestOf(seen) === digestOf(sent)) return { kind: 'replay' };
    return {
      kind: 'refuse',
      error: new IdempotencyKeyReusedError({
        message: `messageId ${message.messageId} was already used in task ${task.id} with different content`,
        metadata: { messageId: message.messageId, taskId: task.id },
      }),
    };
  }
  const state = task.status.state;
  if (isInterruptedState(state)) return { kind: 'continue' };
  const why = isTerminalState(state)
    ? `task ${task.id} is in terminal state ${state} and cannot accept messages`
    : `task ${task.id} is ${state}: one writer at a time, wait until it needs input`;
  return {
    kind: 'refuse',
    error: new UnsupportedOperationError({ message: why, metadata: { taskId: task.id, state } }),
  };
}
