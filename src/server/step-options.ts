/**
 * What an agent may tell `ctx.step` (docs/semantics.md §4 "Durable steps", ADR 0120, ADR 0122): a retry policy,
 * a timeout per attempt, what an attempt interrupted by a crash means, and a schema for the recorded result. And
 * what `fn` is told of its attempt, and the errors a step can end with that are not its `fn`'s own.
 */
import type { ZodType } from 'zod';

/**
 * What a step's `fn` is told, as its second argument (its first stays the side-effect key, so `(key) => …`
 * callers are unchanged; ADR 0120).
 */
export interface StepAttempt {
  /** The step's name. */
  readonly name: string;
  /** `<taskId>:<name>`: the same on every attempt, replica and resume. Pass it downstream as the idempotency key. */
  readonly sideEffectKey: string;
  /** 1-based, counted in the task store over every worker that ran the step, so a resumed worker counts on. */
  readonly attempt: number;
  /**
   * Aborts when the task is cancelled, the worker's lease is lost or its fence moves (another worker took the
   * task), and when this attempt's `timeoutMs` passes. Its `reason` says which.
   */
  readonly signal: AbortSignal;
}

/** When a failed attempt is tried again (ADR 0122). The default of a step is no retry: one attempt per call. */
export interface StepRetryPolicy {
  /** Attempts in all, the first included, counted durably over crashes and replicas (at least 1). */
  readonly maxAttempts: number;
  /** Ceiling of the delay before the second attempt; default 100 ms. */
  readonly initialDelayMs?: number;
  /** Largest ceiling of a delay; default 30 s. */
  readonly maxDelayMs?: number;
  /** Growth of the ceiling per attempt; default 2. */
  readonly factor?: number;
  /** `full` (the default): a delay uniform between 0 and its ceiling; `none`: the ceiling itself. */
  readonly jitter?: 'full' | 'none';
  /**
   * Whether `error`, thrown by attempt `attempt`, is worth another attempt; default: every error. Never asked
   * about a stopped worker, a bad result or the step's own refusals: those end the step at once.
   */
  readonly retryIf?: (error: unknown, attempt: number) => boolean;
}

/** What an attempt that started and never recorded its outcome means on resume (ADR 0123). */
export type StepSemantics = 'at-least-once' | 'at-most-once';

/** The options of `ctx.step`. */
export interface StepOptions<T> {
  readonly retry?: StepRetryPolicy;
  /** Per attempt: past it the attempt's signal aborts with a `StepTimeoutError` and the attempt fails. */
  readonly timeoutMs?: number;
  /**
   * `at-least-once` (default): an interrupted attempt runs again on resume, with the same key and the next
   * attempt number. `at-most-once`: it does not; the step throws `StepInterruptedError` instead.
   */
  readonly semantics?: StepSemantics;
  /** Checks the result `fn` returns before it is recorded, and the recorded one on replay. */
  readonly schema?: ZodType<T>;
}

/**
 * An at-most-once step found an attempt that started and never recorded its outcome (its worker died, lost the
 * task, or the attempt timed out): it does not run `fn` again. Ask the downstream service, by the side-effect
 * key, what became of it (ADR 0123). Every later call of the step throws it again.
 */
export class StepInterruptedError extends Error {
  override name = 'StepInterruptedError';
  constructor(
    readonly stepName: string,
    readonly sideEffectKey: string,
    readonly attempt: number,
    /** `crash`: found on a later call (a worker stopped mid-attempt); `timeout`: this attempt's timeout passed. */
    readonly interruption: 'crash' | 'timeout',
  ) {
    super(
      `Step ${stepName} attempt ${attempt} started and its outcome is unknown (${interruption === 'timeout' ? 'it timed out' : 'it was interrupted'}); ` +
        'an at-most-once step does not run it again: ask the downstream service by the side-effect key',
    );
  }
}

/** The reason an attempt's signal aborts with when its `timeoutMs` passed; the attempt fails with it. */
export class StepTimeoutError extends Error {
  override name = 'StepTimeoutError';
  constructor(
    readonly stepName: string,
    readonly attempt: number,
    readonly timeoutMs: number,
  ) {
    super(`Step ${stepName} attempt ${attempt} timed out after ${timeoutMs} ms`);
  }
}
