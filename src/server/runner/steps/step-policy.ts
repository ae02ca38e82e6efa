/**
 * A step's options, checked once per call and filled with their defaults (ADR 0122), and the delay before a
 * retry: exponential, capped, with full jitter by default (the spread that keeps replicas retrying one outage
 * from arriving together).
 */
import { StepError } from '../../agent-executor.js';
import type { StepOptions, StepSemantics } from '../../step-options.js';
import type { ZodType } from 'zod';

/** The longest timeout or delay a step takes: a day (a wait longer than that is a schedule, not a retry). */
export const MAX_STEP_WAIT_MS = 24 * 60 * 60 * 1000;

/** Highest `maxAttempts`: far past any sensible policy, well within what a store keeps. */
export const MAX_STEP_ATTEMPTS = 1000;

/** The options of one call, checked, with defaults. */
export interface StepPlan<T> {
  /** Undefined: no policy, one attempt per call (as before retry policies existed). */
  readonly maxAttempts: number | undefined;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly factor: number;
  readonly jitter: boolean;
  readonly retryIf: (error: unknown, attempt: number) => boolean;
  readonly timeoutMs: number | undefined;
  readonly semantics: StepSemantics;
  readonly schema: ZodType<T> | undefined;
}

function bad(message: string): never {
  throw new StepError('STEP_OPTIONS_INVALID', message);
}

function whole(value: unknown, what: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max)
    bad(`${what} must be a whole number from ${min} to ${max}, got ${String(value)}`);
  return value;
}

/** Checks `options` (a StepError STEP_OPTIONS_INVALID before anything runs) and fills the defaults. */
export function stepPlan<T>(options: StepOptions<T> | undefined): StepPlan<T> {
  const o = options ?? {};
  const r = o.retry;
  if (r !== undefined && (typeof r !== 'object' || r === null)) bad('retry must be an object');
  const maxAttempts =
    r === undefined ? undefined : whole(r.maxAttempts, 'retry.maxAttempts', 1, MAX_STEP_ATTEMPTS);
  const initialDelayMs = whole(r?.initialDelayMs ?? 100, 'retry.initialDelayMs', 0, MAX_STEP_WAIT_MS);
  const maxDelayMs = whole(r?.maxDelayMs ?? 30_000, 'retry.maxDelayMs', 0, MAX_STEP_WAIT_MS);
  const factor = r?.factor ?? 2;
  if (typeof factor !== 'number' || !Number.isFinite(factor) || factor < 1 || factor > 100)
    bad(`retry.factor must be a number from 1 to 100, got ${String(factor)}`);
  const jitter = r?.jitter ?? 'full';
  if (jitter !== 'full' && jitter !== 'none')
    bad(`retry.jitter must be 'full' or 'none', got ${String(jitter)}`);
  const retryIf = r?.retryIf ?? (() => true);
  if (typeof retryIf !== 'function') bad('retry.retryIf must be a function');
  const timeoutMs =
    o.timeoutMs === undefined ? undefined : whole(o.timeoutMs, 'timeoutMs', 1, MAX_STEP_WAIT_MS);
  const semantics = o.semantics ?? 'at-least-once';
  if (semantics !== 'at-least-once' && semantics !== 'at-most-once')
    bad(`semantics must be 'at-least-once' or 'at-most-once', got ${String(semantics)}`);
  const schema = o.schema;
  if (schema !== undefined && typeof (schema as { safeParse?: unknown }).safeParse !== 'function')
    bad('schema must be a zod schema');
  return {
    maxAttempts,
    initialDelayMs,
    maxDelayMs: Math.max(maxDelayMs, 0),
    factor,
    jitter: jitter === 'full',
    retryIf,
    timeoutMs,
    semantics,
    schema,
  };
}

/**
 * The delay after failed attempt `attempt` (1 for the first): a ceiling of `initialDelayMs * factor^(attempt-1)`,
 * capped at `maxDelayMs`; with full jitter, uniform in [0, ceiling].
 */
export function stepRetryDelay(plan: StepPlan<unknown>, attempt: number, random: () => number): number {
  const ceiling = Math.min(plan.maxDelayMs, plan.initialDelayMs * plan.factor ** Math.min(attempt - 1, 60));
  return Math.round(plan.jitter ? ceiling * random() : ceiling);
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(reasonOf(signal));
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(reasonOf(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The signal's reason as an Error. */
export function reasonOf(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  return r instanceof Error ? r : new Error(String(r));
}
