/**
 * Durable step attempts (ADR 0121) as both SQL stores keep them: one row of `a2a_step_attempts` per task and
 * step name, read back into a record.
 */
import { stepAttemptState, type StepAttemptRecord } from '../step-attempts.js';

/** The columns every read of `a2a_step_attempts` selects. */
export const STEP_ATTEMPT_COLUMNS = 'task_id, name, attempt, state, fence, updated_at';

/** A row of `a2a_step_attempts`. */
export interface StepAttemptRow {
  readonly task_id: string;
  readonly name: string;
  readonly attempt: number | string;
  readonly state: string;
  readonly fence: number | string;
  readonly updated_at: number | string | bigint;
}

/** The record of a row; numbers may come back as strings (PostgreSQL BIGINT) or bigints. */
export function toStepAttemptRecord(row: StepAttemptRow): StepAttemptRecord {
  return {
    taskId: row.task_id,
    name: row.name,
    attempt: Number(row.attempt),
    state: stepAttemptState(row.state),
    fence: Number(row.fence),
    updatedAt: Number(row.updated_at),
  };
}
