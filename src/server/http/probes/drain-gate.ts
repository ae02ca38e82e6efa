/**
 * The drain gate of a graceful shutdown (docs/guides/production.md "Shutting down", ADR 0088): a RequestHandler
 * in front of the real one that, once draining, refuses every new send with a refusal that says nothing ran, and
 * that ends the waits of blocking sends and the streams still open when the grace runs out. Reads pass through
 * for as long as the store is open.
 */
import { IdempotencyCapacityError } from '../../../protocol/errors.js';
import type { RequestHandler } from '../../request-handler.js';
import type { CallContext } from '../../call-context.js';
import { linkSignals, unlimitedListeners } from '../../../store/linked-signals.js';

/** `events`, calling `done` once when they end, however they end (read out, left, or failed). */
async function* unlinkWhenDone<T>(events: AsyncIterable<T>, done: () => void): AsyncGenerator<T> {
  try {
    yield* events;
  } finally {
    done();
  }
}

/** The `Retry-After` of a send refused while draining: another replica can take it at once. */
export const DRAINING_RETRY_AFTER_SECONDS = 1;

/**
 * The refusal of a send while draining: 503, `Retry-After`, and the reason `IDEMPOTENCY_CAPACITY`, the one our
 * client (and any client reading A2A's error details) takes as "refused before anything ran" (ADR 0088).
 */
export function drainingRefusal(): IdempotencyCapacityError {
  return new IdempotencyCapacityError({
    message: 'The server is shutting down and admits no new sends; nothing ran: retry, on another replica',
    retryAfterSeconds: DRAINING_RETRY_AFTER_SECONDS,
    metadata: { draining: 'true' },
  });
}

/** Refuses new sends once draining; ends waits and streams when `end()` is called. */
export class DrainGate {
  #draining = false;
  // Every call in progress listens to it: many listeners are expected, not a leak.
  readonly #end = unlimitedListeners(new AbortController());
  readonly #inFlight = new Set<Promise<unknown>>();

  /** Whether new sends are refused. */
  get draining(): boolean {
    return this.#draining;
  }

  /** Aborts when the grace ends: every blocking wait and open stream listens to it. */
  get endSignal(): AbortSignal {
    return this.#end.signal;
  }

  /** From now on new sends are refused. */
  startDraining(): void {
    this.#draining = true;
  }

  /**
   * The grace is over (or nothing is left to wait for): blocking sends still waiting answer with their task's
   * latest state, open streams end without a final event (a client re-attaches elsewhere). Resolves when the
   * blocking sends have their answer, or after `marginMs`, whichever comes first.
   */
  async end(marginMs: number): Promise<void> {
    this.#draining = true;
    this.#end.abort();
    if (this.#inFlight.size === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.allSettled([...this.#inFlight]),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, marginMs))),
    ]);
    clearTimeout(timer);
  }

  /**
   * `ctx` with a signal that also aborts when the grace ends, and the `dispose` that unlinks it from the end
   * signal, called when the call is over or its caller went away. Not `AbortSignal.any`: on Node 20 it costs
   * tens of microseconds a call, and every gRPC call carries a signal.
   */
  #withEnd(ctx: CallContext): { ctx: CallContext; dispose: () => void } {
    const linked = linkSignals(this.#end.signal, ctx.signal);
    const unlink = () => linked.dispose();
    ctx.signal?.addEventListener('abort', unlink, { once: true });
    const dispose = () => {
      unlink();
      ctx.signal?.removeEventListener('abort', unlink);
    };
    return { ctx: { ...ctx, signal: linked.signal }, dispose };
  }

  /** Runs a streaming operation with the end signal linked, unlinked once the stream is over. */
  async #stream<T>(ctx: CallContext, open: (ctx: CallContext) => Promise<AsyncIterable<T>>) {
    const { ctx: gated, dispose } = this.#withEnd(ctx);
    try {
      return unlinkWhenDone(await open(gated), dispose);
    } catch (err) {
      dispose();
      throw err;
    }
  }

  #track<T>(p: Promise<T>): Promise<T> {
    this.#inFlight.add(p);
    const forget = () => this.#inFlight.delete(p);
    p.then(forget, forget);
    return p;
  }

  /** The handler behind the gate. */
  guard(inner: RequestHandler): RequestHandler {
    const refuseWhileDraining = () => {
      if (this.#draining) throw drainingRefusal();
    };
    return {
      agentCard: inner.agentCard,
      ...(inner.cardSigner !== undefined ? { cardSigner: inner.cardSigner } : {}),
      ...(inner.grpcInterface !== undefined ? { grpcInterface: inner.grpcInterface } : {}),
      ...(inner.logger !== undefined ? { logger: inner.logger } : {}),
      // Every field the bindings read passes through: a dropped `telemetry` silently turned tracing off.
      ...(inner.telemetry !== undefined ? { telemetry: inner.telemetry } : {}),
      ...(inner.histograms !== undefined ? { histograms: inner.histograms } : {}),
      sendMessage: async (params, ctx) => {
        refuseWhileDraining();
        const { ctx: gated, dispose } = this.#withEnd(ctx);
        return this.#track(inner.sendMessage(params, gated).finally(dispose));
      },
      sendStreamingMessage: async (params, ctx) => {
        refuseWhileDraining();
        return this.#stream(ctx, (gated) => inner.sendStreamingMessage(params, gated));
      },
      subscribeToTask: (params, ctx) => this.#stream(ctx, (gated) => inner.subscribeToTask(params, gated)),
      getTask: (params, ctx) => inner.getTask(params, ctx),
      listTasks: (params, ctx) => inner.listTasks(params, ctx),
      cancelTask: (params, ctx) => inner.cancelTask(params, ctx),
      createTaskPushNotificationConfig: (params, ctx) => inner.createTaskPushNotificationConfig(params, ctx),
      getTaskPushNotificationConfig: (params, ctx) => inner.getTaskPushNotificationConfig(params, ctx),
      listTaskPushNotificationConfigs: (params, ctx) => inner.listTaskPushNotificationConfigs(params, ctx),
      deleteTaskPushNotificationConfig: (params, ctx) => inner.deleteTaskPushNotificationConfig(params, ctx),
      getExtendedAgentCard: (params, ctx) => inner.getExtendedAgentCard(params, ctx),
    };
  }
}
