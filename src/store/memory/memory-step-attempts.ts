/**
 * Durable step attempts in the in-memory store (ADR 0121): the shared rule of `../step-attempts.ts`, applied in
 * one synchronous step (the memory store's whole atomicity argument), on the task's entry so they go with it.
 */
import type { Scope } from '../scope.js';
import {
  checkStepAttemptInput,
  stepAttemptTransition,
  type StepAttemptInput,
  type StepAttemptRecord,
  type StepAttemptResult,
} from '../step-attempts.js';
import type { MemoryState } from './memory-state.js';

/** A step's latest attempt as the memory store keeps it. */
export interface MemoryStepAttempt {
  readonly attempt: number;
  readonly state: StepAttemptRecord['state'];
  readonly fence: number;
  readonly updatedAt: number;
}

function toRecord(taskId: string, name: string, a: MemoryStepAttempt): StepAttemptRecord {
  return { taskId, name, attempt: a.attempt, state: a.state, fence: a.fence, updatedAt: a.updatedAt };
}

/** Writes the attempt record if the rule allows it and the fence holds. */
export function writeStepAttempt(
  state: MemoryState,
  scope: Scope,
  taskId: string,
  input: StepAttemptInput,
  now: number,
): StepAttemptResult {
  checkStepAttemptInput(input);
  const entry = state.partition(scope)?.tasks?.get(taskId);
  if (entry === undefined || entry.record.fence !== input.fence) return { outcome: 'fenced' };
  const current = entry.stepAttempts?.get(input.name);
  switch (stepAttemptTransition(current, input)) {
    case 'conflict':
      return { outcome: 'conflict', current: current && toRecord(taskId, input.name, current) };
    case 'same':
      return { outcome: 'written', record: toRecord(taskId, input.name, current!) };
    case 'apply': {
      const next = { attempt: input.attempt, state: input.state, fence: input.fence, updatedAt: now };
      (entry.stepAttempts ??= new Map()).set(input.name, next);
      return { outcome: 'written', record: toRecord(taskId, input.name, next) };
    }
  }
}

/** The latest attempt of the step, if any. */
export function getStepAttempt(
  state: MemoryState,
  scope: Scope,
  taskId: string,
  name: string,
): StepAttemptRecord | undefined {
  const a = state.partition(scope)?.tasks?.get(taskId)?.stepAttempts?.get(name);
  return a === undefined ? undefined : toRecord(taskId, name, a);
}
