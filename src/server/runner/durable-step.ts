/**
 * Durable steps, `ctx.step(name, fn)` (docs/semantics.md §4, ADR 0038). A step runs `fn` at most once to
 * completion per task: its JSON result is recorded in the store under the worker's fencing token, and any later
 * call with that name in the task (a resumed turn on another replica, a later turn, the same turn again) gets
 * the recorded result instead of running `fn`.
 *
 * "At most once to completion" is all a store can promise: if the worker dies after `fn` did its work and before
 * the result was recorded, a resumed turn runs `fn` again. What makes that safe is the step's side-effect key,
 * `<taskId>:<name>`, the same on every replica and every resume, which `fn` passes downstream as that service's
 * idempotency key: the service deduplicates the second call.
 */
import { MAX_JSON_DEPTH } from '../../protocol/json-depth.js';
import { findNonJson } from '../../protocol/json-value.js';
import type { Scope } from '../../store/scope.js';
import { StoreError } from '../../store/sql/store-error.js';
import type { TaskStore } from '../../store/task-store.js';
import { StepError } from '../agent-executor.js';
import { CRASH_ARMED, reachCrashPoint } from '../testing/crash-points.js';
import { errorFields, logSafely } from '../observability/error-log.js';
import type { ServerLogger } from '../observability/logger.js';
import { retryDelay, StoreWriteError, type WriteRetryPolicy } from './write-retry.js';
import type { Telemetry } from '../../telemetry/telemetry.js';
import { live } from '../../telemetry/telemetry.js';
import { ATTR, SPAN } from '../../telemetry/attributes.js';

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

/** What a step needs from the worker that runs it. */
export interface StepHost {
  readonly store: TaskStore;
  readonly scope: Scope;
  readonly taskId: string;
  /** The worker's fencing token: the step is recorded only while the task's fence equals it. */
  readonly fence: number;
  readonly maxResultBytes: number;
  readonly retry: WriteRetryPolicy;
  readonly logger: ServerLogger;
  /** A span per step, named and marked recorded or replayed (ADR 0092); none: no span. */
  readonly telemetry?: Telemetry | undefined;
  /** Throws when the worker may not start a step now: stopped, a write lost, or the task already finished. */
  assertCanWrite(): void;
  /**
   * Confirms that the worker still holds the task (and extends its lease) just before `fn` runs. A store error
   * here is logged and the step goes on: the check narrows a window, the side-effect key is what makes it safe.
   * @throws StaleWriterError when the store says it does not (the worker is then stopped)
   */
  confirmHold(): Promise<void>;
  /** Stops the worker as fenced out; returns the error to throw. */
  fencedOut(): Error;
  /** The idempotency key of the turn's message, to redact from log lines. */
  key(): string | undefined;
}

/** The steps of one turn. */
export class DurableSteps {
  /** Steps this turn started, by name: a second call waits for the first instead of running `fn` again. */
  readonly #started = new Map<string, Promise<unknown>>();

  constructor(private readonly host: StepHost) {}

  run<T>(name: string, fn: (sideEffectKey: string) => T | Promise<T>): Promise<T> {
    try {
      checkStepName(name);
      this.host.assertCanWrite();
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    const started = this.#started.get(name);
    if (started) return started as Promise<T>;
    const telemetry = live(this.host.telemetry);
    const run = telemetry === undefined ? this.#run(name, fn) : this.#traced(telemetry, name, fn);
    this.#started.set(name, run);
    // A step that failed recorded nothing: a later call may try it again.
    run.catch(() => this.#started.delete(name));
    return run;
  }

  /**
   * `#run` in a span: active while `fn` runs (a delegation's client span is its child), `replayed` when the step
   * was found recorded, `recorded` when `fn` ran and its result was stored.
   */
  async #traced<T>(
    telemetry: Telemetry,
    name: string,
    fn: (sideEffectKey: string) => T | Promise<T>,
  ): Promise<T> {
    const span = telemetry.startSpan(SPAN.step, {
      attributes: { [ATTR.stepName]: name, [ATTR.taskId]: this.host.taskId, [ATTR.fence]: this.host.fence },
    });
    try {
      return await span.run(() =>
        this.#run(name, fn, (outcome) => span.setAttribute(ATTR.stepOutcome, outcome)),
      );
    } catch (err) {
      span.fail(err instanceof Error ? err.name : typeof err);
      throw err;
    } finally {
      span.end();
    }
  }

  async #run<T>(
    name: string,
    fn: (sideEffectKey: string) => T | Promise<T>,
    told?: (outcome: 'recorded' | 'replayed') => void,
  ): Promise<T> {
    const h = this.host;
    const earlier = await this.#retrying(name, 'read', () => h.store.getStep(h.scope, h.taskId, name));
    if (earlier) {
      told?.('replayed');
      return earlier.result as T;
    }
    if (CRASH_ARMED) reachCrashPoint('before-effect'); // test-only (ADR 0041)
    h.assertCanWrite();
    // A worker that lost the task (presumed dead, fenced out) learns it here, before the effect, not after.
    await h.confirmHold();
    const value = stepResultValue(name, await fn(sideEffectKeyOf(h.taskId, name)), h.maxResultBytes);
    if (CRASH_ARMED) reachCrashPoint('after-effect'); // test-only (ADR 0041): the effect happened, not recorded
    // A retried record whose first attempt landed answers `exists` with that very record.
    const res = await this.#retrying(name, 'record', () =>
      h.store.recordStep(h.scope, h.taskId, { name, fence: h.fence, result: value }),
    );
    switch (res.outcome) {
      case 'recorded':
      case 'exists':
        told?.(res.outcome === 'recorded' ? 'recorded' : 'replayed');
        // The stored copy, parsed: a resumed turn gets this very value, so the first run sees it too.
        return res.step.result as T;
      case 'fenced':
        throw h.fencedOut();
    }
  }

  /**
   * A store call of a step, retried through store errors on the schedule of worker writes (ADR 0029): reading a
   * step and recording one are both safe to repeat. A refusal of the arguments is thrown at once.
   * @throws StoreWriteError when the budget is spent
   */
  async #retrying<R>(name: string, what: 'read' | 'record', call: () => Promise<R>): Promise<R> {
    const h = this.host;
    let waited = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (err) {
        if (err instanceof StoreError && err.code === 'BAD_ARGUMENT') throw err; // a refusal, not an outage
        if (waited >= h.retry.writeBudgetMs) throw new StoreWriteError(h.taskId, attempt, err);
        const delay = Math.min(retryDelay(attempt - 1, h.retry), h.retry.writeBudgetMs - waited);
        logSafely(h.logger, 'warn', `store failed to ${what} a step; retrying`, {
          taskId: h.taskId,
          step: name,
          attempt,
          retryInMs: delay,
          ...errorFields(err, h.key()),
        });
        await h.retry.sleep(delay);
        waited += delay;
      }
    }
  }
}
