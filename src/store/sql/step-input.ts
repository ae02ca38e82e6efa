/**
 * Durable steps (docs/semantics.md §4 "Durable steps", ADR 0036), the part every store shares: the checks of a
 * step before it is recorded, and its result as the JSON text every store keeps. A step's result is replayed to
 * a resumed agent instead of running the step again, so it must come back exactly as the first run saw it: a
 * value JSON would change on the way (a Date, NaN, a BigInt, `undefined`) is refused, not silently altered, and
 * the first run is handed the parsed stored text too, so both runs see the very same value.
 */
import { MAX_JSON_DEPTH } from '../../protocol/json-depth.js';
import { findNonJson } from '../../protocol/json-value.js';
import type { StepRecord } from '../records.js';
import type { StepInput } from '../task-store.js';
import { StoreError } from './store-error.js';
import { checkFence, textKeyProblem } from './worker-lease.js';

/** Longest step name, in UTF-16 units: it is part of an indexed primary key. */
export const MAX_STEP_NAME_LENGTH = 512;

/** Throws `BAD_ARGUMENT` for a step name no store can key on. */
export function checkStepName(method: string, name: unknown): void {
  const bad = textKeyProblem(name, MAX_STEP_NAME_LENGTH);
  if (bad) throw new StoreError('BAD_ARGUMENT', `${method}: the step name ${bad}`);
}

/**
 * Checks `input` and returns its result as JSON text; throws `BAD_ARGUMENT` (nothing is written) for a name or
 * fence no store can honour, or a result that is not plain JSON data.
 */
export function stepResultText(input: StepInput): string {
  checkStepName('recordStep', input.name);
  checkFence('recordStep', input.fence);
  const result: unknown = input.result;
  // findNonJson lets `undefined` members through (JSON leaves them out), but a result that IS undefined has no text.
  const bad =
    result === undefined
      ? { path: [], problem: 'undefined has no JSON form' }
      : findNonJson(result, MAX_JSON_DEPTH);
  if (bad) {
    const where = bad.path.length === 0 ? 'the result' : `the result at ${bad.path.join('.')}`;
    throw new StoreError('BAD_ARGUMENT', `recordStep: ${where}: ${bad.problem}`);
  }
  return JSON.stringify(result);
}

/** The record of a step whose result is stored as `text`. */
export function stepRecord(
  taskId: string,
  name: string,
  text: string,
  fence: number,
  recordedAt: number,
): StepRecord {
  return { taskId, name, result: JSON.parse(text) as unknown, fence, recordedAt };
}
