/**
 * The CLIENT spans of one call (ADR 0092): a span per call, named by the A2A method and attributed as the A2A
 * conventions say, and under it a CLIENT span per HTTP attempt (`a2a_once.attempt`), whose trace context the
 * attempt's headers carry (`traceparent`, `tracestate`), so the server's span is the attempt's child. A retry is
 * a new attempt span in the same trace, linked to the first attempt's: a keyed resend shows as a second request,
 * whose server span says `a2a_once.admission.outcome = replayed`. Built only when the client has telemetry.
 */
import { HEADER_ADMISSION, type A2AMethod } from '../../protocol/constants.js';
import type { JsonObject } from '../../protocol/model.js';
import { keyHash } from '../../idempotency/key-hash.js';
import { IDEMPOTENCY_METADATA_KEY } from '../../idempotency/constants.js';
import { ATTR, SPAN } from '../../telemetry/attributes.js';
import type { SpanAttributes, Telemetry, TelemetrySpan, TraceCarrier } from '../../telemetry/telemetry.js';
import type { AttemptContext } from '../transport/transport.js';

/** The spans of one call: started with the call, ended by `settle`. */
export class CallSpans {
  readonly #call: TelemetrySpan;
  #first: TraceCarrier | undefined;
  #attempts = 0;

  constructor(
    private readonly telemetry: Telemetry,
    method: A2AMethod,
    params: JsonObject,
  ) {
    this.#call = telemetry.startSpan(method, { kind: 'client', attributes: { [ATTR.method]: method } });
    // Described only when recorded: the key's hash is a SHA-256, for a span nobody would read.
    if (this.#call.recording)
      for (const [k, v] of Object.entries(describeParams(method, params)))
        if (v !== undefined) this.#call.setAttribute(k, v);
  }

  /**
   * Runs one attempt in its span: `ctx`'s headers get the span's trace context, its `fetch` reports the answer's
   * status and admission outcome to the span (and the outcome to the call's span).
   */
  async attempt<T>(
    ctx: AttemptContext,
    version: string,
    attempt: (ctx: AttemptContext) => Promise<T>,
  ): Promise<T> {
    const n = ++this.#attempts;
    const call = this.#call;
    call.setAttribute(ATTR.protocolVersion, version);
    const span = call.run(() =>
      this.telemetry.startSpan(SPAN.attempt, {
        kind: 'client',
        attributes: { [ATTR.attempt]: n },
        links: this.#first === undefined ? [] : [this.#first],
      }),
    );
    if (n === 1) this.#first = span.carrier();
    const headers = { ...ctx.headers };
    span.run(() => this.telemetry.inject(headers));
    const fetchImpl = ctx.fetch;
    const noteAdmission = (answer: Headers): void => {
      const admission = answer.get(HEADER_ADMISSION);
      if (admission !== null) {
        span.setAttribute(ATTR.admission, admitted(admission));
        call.setAttribute(ATTR.admission, admitted(admission));
      }
    };
    const onAnswerHeaders = ctx.onAnswerHeaders;
    const traced: AttemptContext = {
      ...ctx,
      headers,
      fetch: async (input, init) => {
        const res = await fetchImpl(input, init);
        span.setAttribute(ATTR.httpStatus, res.status);
        noteAdmission(res.headers);
        return res;
      },
      // A binding that answers without fetch (gRPC) reports its answer's metadata here instead.
      onAnswerHeaders: (answer) => {
        noteAdmission(answer);
        onAnswerHeaders?.(answer);
      },
    };
    try {
      return await span.run(() => attempt(traced));
    } catch (err) {
      span.fail(errorType(err));
      throw err;
    } finally {
      span.end();
    }
  }

  /** Ends the call's span with what the call came to. */
  async settle<T>(call: Promise<T>): Promise<T> {
    try {
      const value = await call;
      describeResult(this.#call, value);
      return value;
    } catch (err) {
      this.#call.fail(errorType(err));
      throw err;
    } finally {
      this.#call.setAttribute(ATTR.attempts, this.#attempts);
      this.#call.end();
    }
  }

  /** Runs `fn` in the call's span (the retry loop, so each attempt's span is the call's child). */
  run<T>(fn: () => T): T {
    return this.#call.run(fn);
  }
}

/** The server's `A2A-Once-Admission` value in the span's words (`created` is a claim). */
function admitted(header: string): string {
  return header === 'created' ? 'claimed' : header;
}

function describeParams(method: A2AMethod, params: JsonObject): SpanAttributes {
  const p = params as {
    message?: {
      messageId?: unknown;
      taskId?: unknown;
      contextId?: unknown;
      metadata?: Record<string, unknown>;
    };
    id?: unknown;
    tenant?: unknown;
  };
  const m = p.message;
  const key = m?.metadata?.[IDEMPOTENCY_METADATA_KEY];
  return {
    [ATTR.method]: method,
    [ATTR.tenant]: typeof p.tenant === 'string' && p.tenant !== '' ? p.tenant : undefined,
    [ATTR.messageId]: str(m?.messageId),
    [ATTR.taskId]: str(m?.taskId) ?? str(p.id),
    [ATTR.contextId]: str(m?.contextId),
    // The key's hash, never the key (docs/semantics.md §1).
    [ATTR.keyHash]: typeof key === 'string' ? keyHash(key) : undefined,
  };
}

function describeResult(span: TelemetrySpan, value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  const v = value as { task?: unknown; id?: unknown; status?: { state?: unknown }; contextId?: unknown };
  const task = (typeof v.task === 'object' && v.task !== null ? v.task : v) as typeof v;
  if (typeof task.id === 'string' && typeof task.status?.state === 'string') {
    span.setAttribute(ATTR.taskId, task.id);
    span.setAttribute(ATTR.taskState, task.status.state);
    if (typeof task.contextId === 'string') span.setAttribute(ATTR.contextId, task.contextId);
  }
}

/** `error.type`: an A2A or client error's code when it has one, else the error's name. */
function errorType(err: unknown): string {
  const e = err as { code?: unknown; name?: unknown } | null;
  if (typeof e?.code === 'string') return e.code;
  if (typeof e?.name === 'string') return e.name;
  return typeof err;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
