/**
 * Task states and roles exactly as ProtoJSON writes them (A2A v1.0 proto `TaskState`, `Role`).
 * The proto numbers are kept so a lenient reader can accept integer enums (ProtoJSON allows both).
 */

/** Every value of `lf.a2a.v1.TaskState`, as its string name. */
export const TASK_STATES = [
  'TASK_STATE_UNSPECIFIED',
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
] as const;

/** A task state as it appears on the wire; the array index is the proto number. */
export type TaskState = (typeof TASK_STATES)[number];

/** Every value of `lf.a2a.v1.Role`, index = proto number. */
export const ROLES = ['ROLE_UNSPECIFIED', 'ROLE_USER', 'ROLE_AGENT'] as const;

/** Who authored a message. */
export type Role = (typeof ROLES)[number];

const TERMINAL: ReadonlySet<TaskState> = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
]);

const INTERRUPTED: ReadonlySet<TaskState> = new Set([
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_AUTH_REQUIRED',
]);

/** A terminal task is immutable and never restarts (A2A §3.1.1, A2A v1.0). */
export function isTerminalState(state: TaskState): boolean {
  return TERMINAL.has(state);
}

/** INPUT_REQUIRED and AUTH_REQUIRED: the task waits for its client (A2A v1.0). */
export function isInterruptedState(state: TaskState): boolean {
  return INTERRUPTED.has(state);
}

/** Where a blocking send stops waiting: terminal or interrupted (A2A §3.2.2). */
export function isSettledState(state: TaskState): boolean {
  return TERMINAL.has(state) || INTERRUPTED.has(state);
}
