/**
 * The telemetry seam (ADR 0091): what the server and the client ask of a tracer, and nothing more. The core
 * never imports `@opentelemetry/api` (an optional peer): `a2a-once/otel`'s `openTelemetry()` implements this
 * interface over it. No telemetry option means no telemetry code runs at all: every call site checks for
 * `undefined` first, so a host that did not opt in pays one comparison per call and allocates nothing.
 */

/** A value a span attribute holds. */
export type SpanAttributeValue = string | number | boolean;

/** Span attributes; an undefined value is not set. */
export type SpanAttributes = Readonly<Record<string, SpanAttributeValue | undefined>>;

/**
 * A span's context as W3C trace-context headers (`traceparent`, and `tracestate` when there is one): what a
 * request carries, what a task remembers of the send that created it, what a link points to.
 */
export type TraceCarrier = Readonly<Record<string, string>>;

/** Reads one header of an incoming request (`Headers.get` fits). */
export type HeaderReader = (name: string) => string | null | undefined;

/** Where a span starts. */
export interface SpanStart {
  /** SERVER for a call received, CLIENT for a request made, INTERNAL (default) for work inside a process. */
  readonly kind?: 'server' | 'client' | 'internal';
  readonly attributes?: SpanAttributes;
  /**
   * The parent: the trace context an incoming request's headers carry (a SERVER span), or a stored one.
   * Absent: the active span, if any.
   */
  readonly parent?: HeaderReader | TraceCarrier;
  /** Spans this one follows from without being their child (a retry's first attempt, a resumed task's send). */
  readonly links?: readonly TraceCarrier[];
}

/** A started span. */
export interface TelemetrySpan {
  /**
   * Whether anything records this span (an SDK registered, the trace sampled). When false, callers skip the work
   * of describing it (attribute values, links, the stored trace context): nobody would read them.
   */
  readonly recording: boolean;
  setAttribute(key: string, value: SpanAttributeValue): void;
  /** Renames the span (a JSON-RPC call is named by its method once its body is read). */
  rename(name: string): void;
  /** Adds a link to the span a carrier names. */
  link(carrier: TraceCarrier): void;
  /** Marks the span failed: status ERROR and `error.type`. */
  fail(errorType: string): void;
  /** Runs `fn` with this span active: spans started and requests made inside it are its children. */
  run<T>(fn: () => T): T;
  /** This span's context as W3C headers. */
  carrier(): TraceCarrier;
  end(): void;
}

/** A tracer and a propagator, as a2a-once uses them. */
export interface Telemetry {
  startSpan(name: string, start?: SpanStart): TelemetrySpan;
  /** The active span, when there is one. */
  activeSpan(): TelemetrySpan | undefined;
  /** Writes the active trace context into outgoing request headers (`traceparent`, `tracestate`). */
  inject(headers: Record<string, string>): void;
  /** The active span's trace and span ids, for log lines; undefined when no span is active. */
  activeIds(): { readonly traceId: string; readonly spanId: string } | undefined;
  /**
   * True while nothing could record a span or carry a trace context (no SDK started): a2a-once then takes the
   * path it takes without telemetry, asked once per call (ADR 0091, "No SDK, no cost"). Optional: an
   * implementation without it is always traced.
   */
  quiet?(): boolean;
}

/** `telemetry`, or undefined when there is none or it is quiet right now: the one test each traced path makes. */
export function live(telemetry: Telemetry | undefined): Telemetry | undefined {
  return telemetry === undefined || telemetry.quiet?.() === true ? undefined : telemetry;
}
