/**
 * One attempt of a step's `fn` (ADR 0120): its own AbortSignal, which aborts when the worker's does (cancel,
 * lease lost, fence moved) and when the attempt's timeout passes. A timed-out attempt ends at once: it has failed
 * whatever `fn` does later. A stopped worker's attempt ends when `fn` settles, as before attempts had signals:
 * what `fn` learned meanwhile may be needed (a delegation's child task id, to cancel the child), and a result it
 * returns is still offered to the store, which refuses it if the fence moved.
 */
import { StepTimeoutError, type StepAttempt } from '../../step-options.js';
import { reasonOf } from './step-policy.js';

/** How an attempt ended. */
export type AttemptEnd =
  | { readonly kind: 'returned'; readonly value: unknown }
  /** `fn` threw (or rejected): its outcome is known. */
  | { readonly kind: 'threw'; readonly error: unknown }
  /** The timeout passed first. */
  | { readonly kind: 'timed-out'; readonly error: StepTimeoutError }
  /** `fn` threw after the worker stopped; `error` is why the worker stopped. */
  | { readonly kind: 'stopped'; readonly error: Error };

/** What one attempt needs. */
export interface AttemptInit {
  readonly name: string;
  readonly sideEffectKey: string;
  readonly attempt: number;
  readonly timeoutMs: number | undefined;
  /** The worker's signal. */
  readonly worker: AbortSignal;
}

/** Runs `fn` once as attempt `init.attempt`. Never rejects. */
export async function runAttempt<T>(
  init: AttemptInit,
  fn: (sideEffectKey: string, attempt: StepAttempt) => T | Promise<T>,
): Promise<AttemptEnd> {
  const controller = new AbortController();
  let settleEarly: ((end: AttemptEnd) => void) | undefined;
  const early = new Promise<AttemptEnd>((resolve) => (settleEarly = resolve));
  const onStop = (): void => controller.abort(reasonOf(init.worker));
  if (init.worker.aborted) return { kind: 'stopped', error: reasonOf(init.worker) };
  init.worker.addEventListener('abort', onStop, { once: true });
  let timer: NodeJS.Timeout | undefined;
  if (init.timeoutMs !== undefined) {
    const ms = init.timeoutMs;
    timer = setTimeout(() => {
      const error = new StepTimeoutError(init.name, init.attempt, ms);
      controller.abort(error);
      settleEarly?.({ kind: 'timed-out', error });
    }, ms);
  }
  const run = (async (): Promise<AttemptEnd> => {
    try {
      const attempt: StepAttempt = {
        name: init.name,
        sideEffectKey: init.sideEffectKey,
        attempt: init.attempt,
        signal: controller.signal,
      };
      return { kind: 'returned', value: await fn(init.sideEffectKey, attempt) };
    } catch (error) {
      // Thrown after the worker stopped: most likely the abort itself, and no attempt follows either way.
      if (init.worker.aborted) return { kind: 'stopped', error: reasonOf(init.worker) };
      return { kind: 'threw', error };
    }
  })();
  try {
    return await Promise.race([run, early]);
  } finally {
    settleEarly = undefined;
    if (timer !== undefined) clearTimeout(timer);
    init.worker.removeEventListener('abort', onStop);
  }
}
