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
 *
 * Each attempt is recorded in the store before `fn` runs (ADR 0121), so its number counts on over crashes, and
 * an attempt that started and never recorded its outcome is told from one that failed: an at-least-once step
 * (the default) runs again, an at-most-once one throws `StepInterruptedError` (ADR 0123). A retry policy makes
 * further attempts after a failure, never past the task's lease (ADR 0122).
 */
import type { Scope } from '../../store/scope.js';
import { StoreError } from '../../store/sql/store-error.js';
import type { TaskStore } from '../../store/task-store.js';
import { StaleWriterError, StepError } from '../agent-executor.js';
import { StepInterruptedError, type StepAttempt, type StepOptions } from '../step-options.js';
import type { StepAttemptRecord } from '../../store/step-attempts.js';
import type { RenewalOutcome } from './task-worker-init.js';
import { runAttempt, type AttemptEnd } from './steps/step-attempt-run.js';
import { checkedResult } from './steps/step-schema.js';
import { checkStepName, sideEffectKeyOf, stepResultValue } from './steps/step-values.js';
import { sleepUnlessAborted, stepPlan, stepRetryDelay, type StepPlan } from './steps/step-policy.js';
import type { TelemetrySpan } from '../../telemetry/telemetry.js';
import { CRASH_ARMED, reachCrashPoint } from '../testing/crash-points.js';
import { errorFields, logSafely } from '../observability/error-log.js';
import type { ServerLogger } from '../observability/logger.js';
import { retryDelay, StoreWriteError, type WriteRetryPolicy } from './write-retry.js';
import type { Telemetry } from '../../telemetry/telemetry.js';
import { live } from '../../telemetry/telemetry.js';
import { ATTR, SPAN } from '../../telemetry/attributes.js';

export {
  checkStepName,
  DEFAULT_MAX_STEP_RESULT_BYTES,
  MAX_STEP_NAME_LENGTH,
  sideEffectKeyOf,
  stepResultValue,
} from './steps/step-values.js';

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
  /** The task lease's length: a retry delay from a third of it on renews the lease first (ADR 0122). */
  readonly leaseMs: number;
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
  /** Extends the lease now; throws what the store threw. */
  renewLease(): Promise<RenewalOutcome>;
  /** The worker's signal: aborts on cancel, lease lost, fence moved, a write lost. */
  signal(): AbortSignal;
  /** Ends the task FAILED with `text` as its status message, stored before it resolves. */
  failTask(text: string): Promise<void>;
  /** Stops the worker as fenced out; returns the error to throw. */
  fencedOut(): Error;
  /** The idempotency key of the turn's message, to redact from log lines. */
  key(): string | undefined;
}

/** What a step's span is told: how the step ended. */
type StepOutcome = 'recorded' | 'replayed' | 'failed' | 'interrupted';

/** The steps of one turn. */
export class DurableSteps {
  /** Steps this turn started, by name: a second call waits for the first instead of running `fn` again. */
  readonly #started = new Map<string, Promise<unknown>>();

  constructor(private readonly host: StepHost) {}

  run<T>(
    name: string,
    fn: (sideEffectKey: string, attempt: StepAttempt) => T | Promise<T>,
    options?: StepOptions<T>,
  ): Promise<T> {
    let plan: StepPlan<T>;
    try {
      checkStepName(name);
      plan = stepPlan(options);
      this.host.assertCanWrite();
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    const started = this.#started.get(name);
    if (started) return started as Promise<T>;
    const telemetry = live(this.host.telemetry);
    const run = telemetry === undefined ? this.#run(name, fn, plan) : this.#traced(telemetry, name, fn, plan);
    this.#started.set(name, run);
    // A step that failed recorded no result: a later call may try it again (as its policy allows).
    run.catch(() => this.#started.delete(name));
    return run;
  }

  /**
   * `#run` in a span: active while `fn` runs (a delegation's client span is its child), `replayed` when the step
   * was found recorded, `recorded` when `fn` ran and its result was stored; a child span per attempt.
   */
  async #traced<T>(
    telemetry: Telemetry,
    name: string,
    fn: (sideEffectKey: string, attempt: StepAttempt) => T | Promise<T>,
    plan: StepPlan<T>,
  ): Promise<T> {
    const span = telemetry.startSpan(SPAN.step, {
      attributes: { [ATTR.stepName]: name, [ATTR.taskId]: this.host.taskId, [ATTR.fence]: this.host.fence },
    });
    try {
      return await span.run(() =>
        this.#run(name, fn, plan, (outcome) => span.setAttribute(ATTR.stepOutcome, outcome), telemetry),
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
    fn: (sideEffectKey: string, attempt: StepAttempt) => T | Promise<T>,
    plan: StepPlan<T>,
    told?: (outcome: StepOutcome) => void,
    telemetry?: Telemetry,
  ): Promise<T> {
    const h = this.host;
    const earlier = await this.#retrying(name, 'read', () => h.store.getStep(h.scope, h.taskId, name));
    if (earlier) {
      told?.('replayed');
      return this.#checked(name, earlier.result, plan, 'replay');
    }
    if (CRASH_ARMED) reachCrashPoint('before-effect'); // test-only (ADR 0041)
    h.assertCanWrite();
    const key = sideEffectKeyOf(h.taskId, name);
    let current = await this.#retrying(name, 'read', () => h.store.getStepAttempt(h.scope, h.taskId, name));
    let made = 0;
    let conflicts = 0;
    for (;;) {
      const next = this.#nextAttempt(name, key, current, plan, made, told);
      // A worker that lost the task (presumed dead, fenced out) learns it here, before the effect, not after.
      await h.confirmHold();
      const start = { name, fence: h.fence, attempt: next, state: 'started' as const };
      const begun = await this.#retrying(name, 'record', () =>
        h.store.writeStepAttempt(h.scope, h.taskId, start),
      );
      if (begun.outcome === 'fenced') throw h.fencedOut();
      if (begun.outcome === 'conflict') {
        // Another writer under this very fence moved the record (never expected): count on from what it holds,
        // a few times, rather than loop against a writer that keeps moving it.
        if (++conflicts > 3)
          throw new Error(`step ${name}: its attempt record keeps moving under this worker`);
        current = begun.current;
        continue;
      }
      made++;
      this.#log('debug', 'a step attempt started', name, next, plan);
      if (CRASH_ARMED) reachCrashPoint('attempt-started'); // test-only (ADR 0041): recorded, fn not yet run
      const end = await this.#attempt(name, key, next, plan, fn, telemetry);
      if (end.kind === 'returned') return this.#record(name, end.value, plan, told);
      if (end.kind === 'stopped') {
        // Cancelled, fenced out or the lease lost: nothing more is written; the attempt stays started.
        this.#log('warn', 'a step attempt ended after its worker was stopped', name, next, plan, end.error);
        throw end.error;
      }
      if (end.kind === 'timed-out' && plan.semantics === 'at-most-once') {
        // fn may have done its effect without looking at its signal: the outcome is unknown, as after a crash.
        this.#log('warn', 'an at-most-once step attempt timed out; its outcome is unknown', name, next, plan);
        told?.('interrupted');
        throw new StepInterruptedError(name, key, next, 'timeout');
      }
      const failed = { name, fence: h.fence, attempt: next, state: 'failed' as const };
      const noted = await this.#retrying(name, 'record', () =>
        h.store.writeStepAttempt(h.scope, h.taskId, failed),
      );
      if (noted.outcome === 'fenced') throw h.fencedOut();
      current = noted.outcome === 'written' ? noted.record : noted.current;
      const retryIn = this.#retryDelay(name, plan, next, end.error);
      this.#log(
        'warn',
        retryIn === undefined ? 'a step attempt failed' : 'a step attempt failed; retrying',
        name,
        next,
        plan,
        end.error,
        retryIn,
      );
      if (retryIn === undefined) {
        told?.('failed');
        throw end.error;
      }
      await this.#waitToRetry(name, retryIn);
    }
  }

  /**
   * The number of the attempt to make now, from the latest one recorded. An attempt left `started` was
   * interrupted: at-least-once runs again (always, past the policy too: its outcome is unknown, so it has not
   * failed), at-most-once throws. After a failure, a policy's attempts are counted durably; with no policy every
   * call makes one attempt, as before policies existed.
   * @throws StepInterruptedError, or StepError STEP_ATTEMPTS_EXHAUSTED
   */
  #nextAttempt(
    name: string,
    key: string,
    current: StepAttemptRecord | undefined,
    plan: StepPlan<unknown>,
    made: number,
    told: ((outcome: StepOutcome) => void) | undefined,
  ): number {
    if (current === undefined) return 1;
    if (current.state === 'started') {
      if (plan.semantics === 'at-most-once') {
        this.#log(
          'warn',
          'an at-most-once step found an interrupted attempt; not running it again',
          name,
          current.attempt,
          plan,
        );
        told?.('interrupted');
        throw new StepInterruptedError(name, key, current.attempt, 'crash');
      }
      this.#log(
        'warn',
        'a step attempt was interrupted; running the step again',
        name,
        current.attempt,
        plan,
      );
      return current.attempt + 1;
    }
    if (made === 0 && plan.maxAttempts !== undefined && current.attempt >= plan.maxAttempts) {
      told?.('failed');
      throw new StepError(
        'STEP_ATTEMPTS_EXHAUSTED',
        `Step ${name} made all ${plan.maxAttempts} attempts its retry policy allows, and the last one failed`,
      );
    }
    return current.attempt + 1;
  }

  /** Runs one attempt, in a span of its own when traced. */
  async #attempt<T>(
    name: string,
    key: string,
    attempt: number,
    plan: StepPlan<T>,
    fn: (sideEffectKey: string, attempt: StepAttempt) => T | Promise<T>,
    telemetry: Telemetry | undefined,
  ): Promise<AttemptEnd> {
    const init = { name, sideEffectKey: key, attempt, timeoutMs: plan.timeoutMs, worker: this.host.signal() };
    if (telemetry === undefined) return runAttempt(init, fn);
    // The step's span (active here) says which attempt it ran last.
    telemetry.activeSpan()?.setAttribute(ATTR.attempt, attempt);
    // A plain step's first attempt is its span: a span per attempt only where attempts can be several (a
    // policy, a timeout, at-most-once) or an earlier one was cut short, so a plain step's trace keeps its shape.
    const plain =
      attempt === 1 &&
      plan.maxAttempts === undefined &&
      plan.timeoutMs === undefined &&
      plan.semantics === 'at-least-once';
    if (plain) return runAttempt(init, fn);
    const span: TelemetrySpan = telemetry.startSpan(SPAN.stepAttempt, {
      attributes: { [ATTR.stepName]: name, [ATTR.attempt]: attempt, [ATTR.stepSemantics]: plan.semantics },
    });
    try {
      const end = await span.run(() => runAttempt(init, fn));
      span.setAttribute(ATTR.stepOutcome, end.kind);
      if (end.kind !== 'returned') span.fail(end.error instanceof Error ? end.error.name : typeof end.error);
      return end;
    } finally {
      span.end();
    }
  }

  /** Records what the attempt returned, and hands back the stored copy. */
  async #record<T>(
    name: string,
    returned: unknown,
    plan: StepPlan<T>,
    told: ((outcome: StepOutcome) => void) | undefined,
  ): Promise<T> {
    const h = this.host;
    // A result that cannot be recorded is refused before anything is written: fn ran, so the attempt is not
    // failed (at-most-once finds it interrupted, at-least-once runs it again).
    const value = stepResultValue(name, returned, h.maxResultBytes);
    this.#checked(name, value, plan, 'result');
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
        return this.#checked(name, res.step.result, plan, 'replay');
      case 'fenced':
        throw h.fencedOut();
    }
  }

  /** The value through the step's schema, if it has one. @throws StepError STEP_RESULT_INVALID */
  #checked<T>(name: string, value: unknown, plan: StepPlan<T>, what: 'result' | 'replay'): T {
    return checkedResult(name, value, plan.schema, what, (issues) =>
      logSafely(this.host.logger, 'error', 'a recorded step result does not match its schema', {
        taskId: this.host.taskId,
        step: name,
        issues,
      }),
    );
  }

  /** The delay before the next attempt after `attempt` failed with `error`; undefined: no retry. */
  #retryDelay(step: string, plan: StepPlan<unknown>, attempt: number, error: unknown): number | undefined {
    if (plan.maxAttempts === undefined || attempt >= plan.maxAttempts) return undefined;
    if (error instanceof StepError || error instanceof StaleWriterError || error instanceof StoreWriteError)
      return undefined;
    let again: boolean;
    try {
      again = plan.retryIf(error, attempt) === true;
    } catch (err) {
      logSafely(this.host.logger, 'error', "a step's retryIf threw; not retrying", {
        taskId: this.host.taskId,
        step,
        attempt,
        ...errorFields(err, this.host.key()),
      });
      return undefined;
    }
    return again ? stepRetryDelay(plan, attempt, this.host.retry.random) : undefined;
  }

  /**
   * Waits `ms` before the next attempt, never past the lease (ADR 0122): a wait from a third of the lease on
   * renews it first (the lease keeper renews it through the wait, as for any running turn); if the store cannot
   * renew it, the task is failed naming the step rather than retried by a worker whose lease may lapse. A
   * worker stopped while waiting makes no further attempt.
   */
  async #waitToRetry(step: string, ms: number): Promise<void> {
    const h = this.host;
    if (ms * 3 >= h.leaseMs) {
      let outcome: RenewalOutcome;
      try {
        outcome = await h.renewLease();
      } catch (err) {
        logSafely(
          h.logger,
          'error',
          "a step's retry would outlive the task lease, which could not be renewed; failing the task",
          {
            taskId: h.taskId,
            step,
            retryInMs: ms,
            ...errorFields(err, h.key()),
          },
        );
        const text = `Step ${step} gave up retrying: its next attempt was due after the task's lease, which could not be renewed`;
        await h.failTask(text);
        throw new StepError('STEP_RETRY_ABANDONED', text);
      }
      if (outcome === 'lost') throw h.fencedOut();
    }
    await sleepUnlessAborted(ms, h.signal());
    h.assertCanWrite();
  }

  #log(
    level: 'debug' | 'warn',
    message: string,
    step: string,
    attempt: number,
    plan: StepPlan<unknown>,
    error?: unknown,
    retryInMs?: number,
  ): void {
    const h = this.host;
    if (h.logger.enabled?.(level) === false) return;
    // Never the side-effect key: it is the downstream service's idempotency key (docs/semantics.md §1).
    const fields = {
      taskId: h.taskId,
      step,
      attempt,
      semantics: plan.semantics,
      ...(plan.maxAttempts === undefined ? {} : { maxAttempts: plan.maxAttempts }),
      ...(retryInMs === undefined ? {} : { retryInMs }),
      ...(error === undefined
        ? {}
        : { errorName: error instanceof Error ? error.name : typeof error, ...errorFields(error, h.key()) }),
    };
    try {
      h.logger[level](message, fields);
    } catch {
      // The log sink is broken; the step's outcome must not depend on it.
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
