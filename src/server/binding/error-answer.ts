/**
 * The A2AError a binding answers for whatever a call threw. A store refusing text it cannot hold is the
 * caller's bad input, answered INVALID_PARAMS, never INTERNAL (ADR 0059); since the door should have refused
 * that text first, the slip is logged, so the gap gets closed.
 */
import { A2AError, InvalidParamsError, toA2AError } from '../../protocol/errors.js';
import { isUnstorableTextError } from '../../store/sql/unstorable-text-error.js';
import { errorFields, logSafely } from '../observability/error-log.js';
import type { LogFields, ServerLogger } from '../observability/logger.js';

/** What the log line of a call may say (the key only as a hash). */
export interface CallForLog {
  readonly method?: string | undefined;
  readonly taskId?: string | undefined;
  readonly key?: string | undefined;
}

/**
 * The answer for `err`: itself when it is an A2AError (one we chose, wrapping whatever it wraps), INVALID_PARAMS
 * for a driver's refusal of unstorable text, else INTERNAL. `call` is read only for the log line of a slip.
 */
export function errorAnswer(err: unknown, logger: ServerLogger, call: () => CallForLog): A2AError {
  if (err instanceof A2AError || !isUnstorableTextError(err)) return toA2AError(err);
  const where = call();
  const fields: LogFields = { ...errorFields(err, where.key) };
  if (where.method !== undefined) fields.method = where.method;
  if (where.taskId !== undefined) fields.taskId = where.taskId;
  logSafely(logger, 'warn', 'the store refused text a request carried; answered INVALID_PARAMS', fields);
  return new InvalidParamsError({
    message:
      'Invalid parameters: the request holds text the task store cannot hold (U+0000 or an unpaired UTF-16 surrogate)',
    cause: err,
  });
}
