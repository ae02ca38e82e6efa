/**
 * Logging unexpected errors (ADR 0029): every one leaves a line with its stack and the task id when there is one,
 * and never the idempotency key in clear (docs/semantics.md §1): a key found in an error's text is replaced by its hash.
 * A host's logger that throws must not change what the caller is told, so every call here is guarded.
 */
import { keyHash } from '../../idempotency/index.js';
import { A2AError } from '../../protocol/errors.js';
import type { LogFields, ServerLogger } from './logger.js';

/** The `error` and `stack` fields of a log line for `err`, with `key` (if any) replaced by its hash. */
export function errorFields(err: unknown, key?: string): { error: string; stack?: string; cause?: string } {
  const redact = (s: string) =>
    key === undefined || key === '' ? s : s.replaceAll(key, `<key ${keyHash(key)}>`);
  if (err instanceof Error) {
    const fields: { error: string; stack?: string; cause?: string } = { error: redact(err.message) };
    if (err.stack !== undefined) fields.stack = redact(err.stack);
    // An error that wraps another (a fixed text for callers over the transport's failure) keeps the why here.
    const cause: unknown = err.cause;
    if (cause !== undefined)
      fields.cause = redact(cause instanceof Error ? `${cause.name}: ${cause.message}` : shown(cause));
    return fields;
  }
  return { error: redact(String(err)) };
}

/** A thrown value that is not an Error, as text: JSON where it has one (a cycle or a bigint has none). */
function shown(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}

/** Writes one line; a throwing logger is ignored (it must not turn an answer into a failure). */
export function logSafely(
  logger: ServerLogger,
  level: 'info' | 'warn' | 'error',
  message: string,
  fields: LogFields,
): void {
  try {
    logger[level](message, fields);
  } catch {
    // Nothing to do: the log sink itself is broken, and the caller's answer must not depend on it.
  }
}

/** Task ids of errors thrown where the task is known but the binding that answers cannot see it. */
const taskIds = new WeakMap<object, string>();

/** Records which task `err` is about, for the line the binding logs when it answers with it. */
export function noteTaskId<E extends object>(err: E, taskId: string): E {
  taskIds.set(err, taskId);
  return err;
}

/** Whether an error answered to a caller is an unexpected one (INTERNAL_ERROR), as opposed to a refusal. */
export function isInternal(err: unknown): boolean {
  return !(err instanceof A2AError) || err.reason === 'INTERNAL_ERROR';
}

/** Where an answered error came from, for its log line. */
export interface AnswerContext {
  /** The A2A method, when the request got that far. */
  readonly method?: string | undefined;
  /** The task the request named, if any. */
  readonly taskId?: string | undefined;
  /** The idempotency key the request carried, if any: redacted from the line, never written. */
  readonly key?: string | undefined;
  /** `answer` (a unary error response) or `stream` (a stream cut mid-way). */
  readonly as: 'answer' | 'stream';
}

/**
 * Logs an INTERNAL_ERROR answer at `error`, with the stack of what caused it (the wrapped error, not the
 * wrapper) and the task id when one is known. Refusals (bad input, not found, conflicts) are the caller's
 * business and are not logged here.
 */
export function logInternalAnswer(logger: ServerLogger, err: unknown, where: AnswerContext): void {
  if (!isInternal(err)) return;
  const cause = err instanceof A2AError && err.cause !== undefined ? err.cause : err;
  const taskId =
    (typeof err === 'object' && err !== null ? taskIds.get(err) : undefined) ??
    (typeof cause === 'object' && cause !== null ? taskIds.get(cause) : undefined) ??
    where.taskId;
  const fields: LogFields = { ...errorFields(cause, where.key) };
  if (where.method !== undefined) fields.method = where.method;
  if (taskId !== undefined) fields.taskId = taskId;
  logSafely(
    logger,
    'error',
    where.as === 'stream' ? 'stream cut by an internal error' : 'internal error answered',
    fields,
  );
}
