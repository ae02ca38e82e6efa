/**
 * What a durable step's name and result may be (docs/semantics.md §4, ADR 0038): names that make a valid
 * side-effect key, results that JSON keeps exactly and that fit the size limit.
 */
import { MAX_JSON_DEPTH } from '../../../protocol/json-depth.js';
import { findNonJson } from '../../../protocol/json-value.js';
import { StepError } from '../../agent-executor.js';

/**
 * Longest step name. With a UUID task id (36 characters) and the colon, the side-effect key stays within the
 * 255 characters an idempotency key may have (docs/semantics.md §1), with room to spare.
 */
export const MAX_STEP_NAME_LENGTH = 128;

/** 256 KiB of JSON: a step records a receipt or an id, not a document, and every resume reads it back. */
export const DEFAULT_MAX_STEP_RESULT_BYTES = 256 * 1024;

/** The idempotency-key character set (docs/semantics.md §1), so `<taskId>:<name>` is a valid key. */
const NAME_PATTERN = /^[A-Za-z0-9\-_.:]+$/;

/**
 * Checks a step name: 1 to 128 characters, ASCII letters, digits, `-` `_` `.` `:` only (the characters of an
 * idempotency key, so the side-effect key built from it is one).
 * @throws StepError STEP_NAME_INVALID
 */
export function checkStepName(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0) {
    throw new StepError('STEP_NAME_INVALID', 'A step name must be a non-empty string');
  }
  if (name.length > MAX_STEP_NAME_LENGTH) {
    throw new StepError(
      'STEP_NAME_INVALID',
      `A step name must be at most ${MAX_STEP_NAME_LENGTH} characters; this one has ${name.length}`,
    );
  }
  if (!NAME_PATTERN.test(name)) {
    throw new StepError(
      'STEP_NAME_INVALID',
      'A step name may hold only ASCII letters, digits, "-", "_", "." and ":" (it becomes part of an idempotency key)',
    );
  }
  return name;
}

/** The side-effect key of step `name` of task `taskId`. @throws StepError for a bad name */
export function sideEffectKeyOf(taskId: string, name: string): string {
  return `${taskId}:${checkStepName(name)}`;
}

/**
 * The value to record for what `fn` returned: `undefined` (a step that returns nothing) becomes `null`; a value
 * JSON would change or cannot hold, or one whose JSON is over `maxBytes` (UTF-8), is refused.
 * @throws StepError STEP_RESULT_NOT_JSON or STEP_RESULT_TOO_LARGE
 */
export function stepResultValue(name: string, result: unknown, maxBytes: number): unknown {
  if (result === undefined) return null;
  const bad = findNonJson(result, MAX_JSON_DEPTH);
  if (bad) {
    const where = bad.path.length === 0 ? 'its result' : `its result at ${bad.path.join('.')}`;
    throw new StepError(
      'STEP_RESULT_NOT_JSON',
      `Step ${name} was not recorded: ${where} is not JSON data (${bad.problem})`,
    );
  }
  const bytes = Buffer.byteLength(JSON.stringify(result), 'utf8');
  if (bytes > maxBytes) {
    throw new StepError(
      'STEP_RESULT_TOO_LARGE',
      `Step ${name} was not recorded: its result is ${bytes} bytes of JSON, over the limit of ${maxBytes}; ` +
        'record a reference (an id, a URL) instead of the data',
    );
  }
  return result;
}
