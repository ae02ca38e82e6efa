/**
 * Task states and roles between v0.3 (lower-case kebab) and v1.0 (`TASK_STATE_*`, `ROLE_*`). Every state has a
 * counterpart; v1.0's `ROLE_UNSPECIFIED` has none and is written as `agent` (ADR 0098).
 */
import type { Role, TaskState } from '../task-state.js';
import type { V03TaskState } from './schemas.js';

const TO_V1: Readonly<Record<V03TaskState, TaskState>> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  canceled: 'TASK_STATE_CANCELED',
  failed: 'TASK_STATE_FAILED',
  rejected: 'TASK_STATE_REJECTED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
  unknown: 'TASK_STATE_UNSPECIFIED',
};

const TO_V03 = new Map<TaskState, V03TaskState>(
  Object.entries(TO_V1).map(([v03, v1]) => [v1, v03 as V03TaskState]),
);

/** The v1.0 state of a v0.3 state. */
export function stateToV1(state: V03TaskState): TaskState {
  return TO_V1[state];
}

/** The v0.3 state of a v1.0 state. */
export function stateToV03(state: TaskState): V03TaskState {
  return TO_V03.get(state) ?? 'unknown';
}

/** The v1.0 role of a v0.3 role. */
export function roleToV1(role: 'user' | 'agent'): Role {
  return role === 'user' ? 'ROLE_USER' : 'ROLE_AGENT';
}

/** The v0.3 role of a v1.0 role (`ROLE_UNSPECIFIED` has no v0.3 form and is written as `agent`). */
export function roleToV03(role: Role): 'user' | 'agent' {
  return role === 'ROLE_USER' ? 'user' : 'agent';
}
