/**
 * A step's zod schema applied to its result (ADR 0120): before it is recorded, and on every replay, so a result
 * of another shape (recorded by an older version of the agent) is a clear StepError, never a silent cast.
 */
import type { ZodType } from 'zod';
import { StepError } from '../../agent-executor.js';

/**
 * `value` through `schema` (its output), or `value` itself without one; `onReplayMismatch` is told the issues of a
 * recorded result that does not match.
 * @throws StepError STEP_RESULT_INVALID
 */
export function checkedResult<T>(
  name: string,
  value: unknown,
  schema: ZodType<T> | undefined,
  what: 'result' | 'replay',
  onReplayMismatch: (issues: string) => void,
): T {
  if (schema === undefined) return value as T;
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length === 0 ? '(root)' : i.path.join('.')}: ${i.message}`)
    .join('; ');
  if (what === 'replay') onReplayMismatch(issues);
  const which = what === 'result' ? 'the result its fn returned' : 'its recorded result';
  throw new StepError('STEP_RESULT_INVALID', `Step ${name}: ${which} does not match its schema (${issues})`);
}
