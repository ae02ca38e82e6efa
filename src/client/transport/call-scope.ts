/**
 * The time and cancellation limits of one call and of each of its attempts. A call has the caller's
 * AbortSignal and an overall deadline; each attempt also has its own timeout, so a peer that holds one attempt
 * past its timeout is treated as an ambiguous failure (docs/semantics.md §7) and, where that is safe, retried within
 * the call's deadline.
 */
import { TransportError } from './transport-error.js';
import type { AttemptSignal } from './transport.js';

/** The caller's abort reason as an Error (AbortSignal reasons are Errors unless a caller passed something else). */
function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new DOMException('aborted', 'AbortError');
}

/** The longest delay one `setTimeout` can hold. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Why an attempt's signal fired. */
export type AbortCause = 'caller' | 'deadline' | 'timeout';

/** The limits of one call. */
export class CallScope {
  /** Epoch ms after which no attempt may run, or undefined for no deadline. */
  readonly deadlineAt: number | undefined;
  private readonly caller: AbortSignal | undefined;

  constructor(options: { signal?: AbortSignal | undefined; timeoutMs?: number | undefined; now?: number }) {
    this.caller = options.signal;
    const now = options.now ?? Date.now();
    this.deadlineAt = options.timeoutMs === undefined ? undefined : now + Math.max(0, options.timeoutMs);
  }

  /** Whether the caller aborted. */
  get callerAborted(): boolean {
    return this.caller?.aborted === true;
  }

  /** The caller's abort reason. */
  get callerReason(): unknown {
    const reason: unknown = this.caller?.reason;
    return reason;
  }

  /** Ms left before the deadline (Infinity without one). */
  remainingMs(now: number = Date.now()): number {
    return this.deadlineAt === undefined ? Infinity : Math.max(0, this.deadlineAt - now);
  }

  /** Starts an attempt limited by the caller's signal, the deadline and `timeoutMs` (undefined: none). */
  attempt(timeoutMs: number | undefined): AttemptScope {
    return new AttemptScope(this, this.caller, timeoutMs);
  }

  /**
   * Waits `ms` (a backoff), or rejects as soon as the caller aborts. Never waits past the deadline: the
   * caller of `sleep` checks `remainingMs` first.
   */
  sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    const caller = this.caller;
    return new Promise((resolve, reject) => {
      if (caller?.aborted) {
        reject(abortError(caller));
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(abortError(caller));
      };
      // A timer holds at most 2^31 - 1 ms (Node fires a longer one after 1 ms): a longer wait is waited in steps.
      const until = Date.now() + ms;
      let timer: ReturnType<typeof setTimeout>;
      const step = (): void => {
        const left = until - Date.now();
        if (left <= 0) {
          caller?.removeEventListener('abort', onAbort);
          resolve();
          return;
        }
        timer = setTimeout(step, Math.min(left, MAX_TIMER_MS));
      };
      timer = setTimeout(step, Math.min(ms, MAX_TIMER_MS));
      caller?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** One attempt: a signal that fires on caller abort, deadline or attempt timeout, and knows which. */
export class AttemptScope implements AttemptSignal {
  /** Epoch ms of the call's deadline, or undefined without one. */
  readonly deadlineAt: number | undefined;
  /** Epoch ms at which the attempt times out, or undefined without an attempt timeout. */
  private attemptEndsAt: number | undefined;
  private readonly controller = new AbortController();
  private cause: AbortCause | undefined;
  private readonly timers: ReturnType<typeof setTimeout>[] = [];
  private readonly unlink: () => void;

  constructor(
    private readonly call: CallScope,
    caller: AbortSignal | undefined,
    timeoutMs: number | undefined,
  ) {
    const onCaller = (): void => this.fire('caller', caller?.reason);
    if (caller?.aborted) this.fire('caller', caller.reason);
    else caller?.addEventListener('abort', onCaller, { once: true });
    this.unlink = () => caller?.removeEventListener('abort', onCaller);
    this.deadlineAt = call.deadlineAt;
    const remaining = call.remainingMs();
    if (remaining !== Infinity) this.arm('deadline', remaining);
    if (timeoutMs !== undefined) {
      this.attemptEndsAt = Date.now() + timeoutMs;
      this.arm('timeout', timeoutMs);
    }
  }

  /** Epoch ms at which the attempt times out, until `clearAttemptTimeout`; undefined without a timeout. */
  get timeoutAt(): number | undefined {
    return this.attemptEndsAt;
  }

  /** The signal to hand to `fetch` and to body reads. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Why the signal fired, if it did. */
  get abortCause(): AbortCause | undefined {
    return this.cause;
  }

  /** Stops the attempt timeout (a stream that opened is bounded by the deadline only). */
  clearAttemptTimeout(): void {
    // Timers are armed deadline first, so the attempt timeout, when present, is the last one.
    for (const t of this.timers) clearTimeout(t);
    this.timers.length = 0;
    this.attemptEndsAt = undefined;
    const remaining = this.call.remainingMs();
    if (remaining !== Infinity && this.cause === undefined) this.arm('deadline', remaining);
  }

  /** Aborts the attempt on our side (for example, to stop reading a stream that ended properly). */
  abort(): void {
    this.fire('caller', new DOMException('attempt finished', 'AbortError'));
  }

  /** Releases timers and listeners. Idempotent. */
  dispose(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.length = 0;
    this.unlink();
  }

  /**
   * Turns whatever an attempt threw into what the retry loop reasons about: the caller's abort reason as is,
   * our own deadline or timeout as an ambiguous TransportError (the peer may be working on it), anything else
   * unchanged. A failure that shows nothing was sent stays "not sent" when a timer fired meanwhile: a gRPC
   * channel that never became ready by the deadline sent nothing (ADR 0111).
   */
  translate(err: unknown): unknown {
    if (this.cause !== 'caller' && err instanceof TransportError && err.kind === 'not-sent') return err;
    switch (this.cause) {
      case 'caller':
        return this.call.callerAborted ? this.call.callerReason : err;
      case 'deadline':
        return new TransportError('ambiguous', 'DEADLINE_EXCEEDED', 'the call deadline passed', {
          cause: err,
        });
      case 'timeout':
        return new TransportError('ambiguous', 'TIMEOUT', 'the attempt timed out', { cause: err });
      case undefined:
        return err;
    }
  }

  private arm(cause: AbortCause, ms: number): void {
    const t = setTimeout(() => this.fire(cause, new DOMException(`${cause} expired`, 'TimeoutError')), ms);
    // A pending deadline must not keep a process alive that has nothing else to do.
    t.unref?.();
    this.timers.push(t);
  }

  private fire(cause: AbortCause, reason: unknown): void {
    if (this.controller.signal.aborted) return;
    this.cause = cause;
    this.controller.abort(reason);
  }
}
