/**
 * Durable step attempts (docs/semantics.md §4 "Durable steps", ADR 0121): where a step's latest attempt stands,
 * one record per (task, step name), next to the step's result. An attempt is recorded `started` before the
 * step's `fn` runs and `failed` when `fn` threw in the process that ran it; a record left `started` on a resume
 * is an attempt whose outcome nobody knows (its worker died or lost the task mid-attempt).
 *
 * Every write names the attempt it writes, so it is a compare-and-set on the record and safe to repeat after a
 * lost answer: `started n` follows attempt n - 1 (or nothing, for n = 1), `failed n` follows `started n`, and the
 * same write made again is answered `written` without changing anything. Like `recordStep`, a write lands only
 * while the task's fence equals the writer's. This file is the rule every store applies.
 */
import { StoreError } from './sql/store-error.js';
import { checkStepName } from './sql/step-input.js';
import { checkFence } from './sql/worker-lease.js';

/** `started`: `fn` may be running or may have run; `failed`: `fn` threw, its outcome is known. */
export type StepAttemptState = 'started' | 'failed';

/** The latest attempt of a step, as stored. */
export interface StepAttemptRecord {
  readonly taskId: string;
  readonly name: string;
  /** 1-based, counted over every worker that ran the step. */
  readonly attempt: number;
  readonly state: StepAttemptState;
  /** The fencing token of the worker that wrote the record. */
  readonly fence: number;
  readonly updatedAt: number;
}

/** Input of `writeStepAttempt`. */
export interface StepAttemptInput {
  readonly name: string;
  /** The writer's fence: the record is written only while the task's fence equals it. */
  readonly fence: number;
  readonly attempt: number;
  readonly state: StepAttemptState;
}

/** Result of `writeStepAttempt`. */
export type StepAttemptResult =
  /** Written now, or this very write was applied before (its answer lost): `record` is what is stored. */
  | { readonly outcome: 'written'; readonly record: StepAttemptRecord }
  /** The record is not where this write expects it (another attempt was written): nothing changed. */
  | { readonly outcome: 'conflict'; readonly current: StepAttemptRecord | undefined }
  /** The task's fence moved on (or the task is gone): the writer is stale. */
  | { readonly outcome: 'fenced' };

/** Highest attempt number a store keeps: far past any retry policy, and an exact integer everywhere. */
export const MAX_STEP_ATTEMPT = 1_000_000;

/** Throws `BAD_ARGUMENT` for an input no store can honour; nothing is written. */
export function checkStepAttemptInput(input: StepAttemptInput): void {
  checkStepName('writeStepAttempt', input.name);
  checkFence('writeStepAttempt', input.fence);
  const n: unknown = input.attempt;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1 || n > MAX_STEP_ATTEMPT) {
    throw new StoreError(
      'BAD_ARGUMENT',
      `writeStepAttempt: attempt must be an integer from 1 to ${MAX_STEP_ATTEMPT}, got ${String(n)}`,
    );
  }
  const state: unknown = input.state;
  if (state !== 'started' && state !== 'failed') {
    throw new StoreError(
      'BAD_ARGUMENT',
      `writeStepAttempt: state must be started or failed, got ${String(state)}`,
    );
  }
}

/**
 * What a write does to the current record: `apply` it, answer it as a repeat (`same`), or refuse it
 * (`conflict`). The Redis script (redis/lua/lua-step-attempts.ts) spells out the same rule.
 */
export function stepAttemptTransition(
  current: { readonly attempt: number; readonly state: StepAttemptState; readonly fence: number } | undefined,
  input: StepAttemptInput,
): 'apply' | 'same' | 'conflict' {
  if (input.state === 'started') {
    if (current === undefined) return input.attempt === 1 ? 'apply' : 'conflict';
    if (current.attempt === input.attempt - 1) return 'apply';
    const repeat =
      current.attempt === input.attempt && current.state === 'started' && current.fence === input.fence;
    return repeat ? 'same' : 'conflict';
  }
  if (current === undefined || current.attempt !== input.attempt) return 'conflict';
  return current.state === 'started' ? 'apply' : 'same';
}

/** The record `input` becomes once applied at `now`: what a SQL store answers after its upsert. */
export function appliedStepAttempt(taskId: string, input: StepAttemptInput, now: number): StepAttemptRecord {
  const { name, attempt, state, fence } = input;
  return { taskId, name, attempt, state, fence, updatedAt: now };
}

/** The state column's text, read back: anything else is a corrupt row, refused rather than guessed. */
export function stepAttemptState(text: unknown): StepAttemptState {
  if (text === 'started' || text === 'failed') return text;
  throw new Error(`a stored step attempt has the unknown state ${JSON.stringify(text)}`);
}
