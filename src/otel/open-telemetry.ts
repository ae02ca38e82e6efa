/**
 * `openTelemetry()`: the telemetry seam over `@opentelemetry/api` (ADR 0091). The only code of the package that
 * imports it: a user without the API installed imports every other subpath. By default it uses the tracer
 * provider and the propagator registered globally (`trace.setGlobalTracerProvider`,
 * `propagation.setGlobalPropagator`, which an SDK's `start()` does), through the API's proxy tracer, so that one registered
 * after the server was built is used too; `tracerProvider` and `propagator` give others.
 */
import {
  context,
  propagation,
  ProxyTracerProvider,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Link,
  type Span,
  type TextMapGetter,
  type TextMapPropagator,
  type TracerProvider,
} from '@opentelemetry/api';
import type {
  HeaderReader,
  SpanStart,
  Telemetry,
  TelemetrySpan,
  TraceCarrier,
} from '../telemetry/telemetry.js';

/** A tracer provider: an object with `getTracer`, as `@opentelemetry/api` defines it. */
export interface TracerProviderLike {
  getTracer(name: string, version?: string): unknown;
}

/** A text-map propagator, as `@opentelemetry/api` defines it (`W3CTraceContextPropagator` is one). */
export interface PropagatorLike {
  inject(context: unknown, carrier: unknown, setter: unknown): void;
  extract(context: unknown, carrier: unknown, getter: unknown): unknown;
  fields(): string[];
}

/** Options of `openTelemetry`. */
export interface OpenTelemetryOptions {
  /** Default: the global tracer provider. */
  readonly tracerProvider?: TracerProviderLike;
  /** Default: the global propagator (register `W3CTraceContextPropagator` for `traceparent`). */
  readonly propagator?: PropagatorLike;
  /** The tracer's instrumentation scope name. Default `a2a-once`. */
  readonly tracerName?: string;
}

const KINDS = { server: SpanKind.SERVER, client: SpanKind.CLIENT, internal: SpanKind.INTERNAL } as const;

const readerGetter: TextMapGetter<HeaderReader> = {
  get: (read, key) => read(key) ?? undefined,
  keys: () => [],
};

const carrierGetter: TextMapGetter<TraceCarrier> = {
  get: (c, key) => c[key],
  keys: (c) => Object.keys(c),
};

/**
 * Telemetry through `@opentelemetry/api`: spans from the tracer provider, trace context in and out through the
 * propagator. Pass it as `telemetry` to `createA2AServer` and to `A2AClient`.
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): Telemetry {
  const name = options.tracerName ?? 'a2a-once';
  const provider = options.tracerProvider as TracerProvider | undefined;
  const propagator = options.propagator as TextMapPropagator | undefined;
  // The global provider's tracer is a proxy that finds a provider registered later by itself: made once, not per
  // span (with no SDK registered, a new proxy per span was most of what a span cost).
  const globalTracer = provider === undefined ? trace.getTracer(name) : undefined;
  const tracer = () => globalTracer ?? provider!.getTracer(name);
  const inject = (ctx: Context, headers: Record<string, string>) =>
    propagator ? propagator.inject(ctx, headers, defaultSetter) : propagation.inject(ctx, headers);
  const extract = <C>(carrier: C, getter: TextMapGetter<C>): Context =>
    propagator
      ? propagator.extract(context.active(), carrier, getter)
      : propagation.extract(context.active(), carrier, getter);
  const carrierOf = (span: Span): TraceCarrier => {
    const out: Record<string, string> = {};
    inject(trace.setSpan(context.active(), span), out);
    return out;
  };
  const linkOf = (c: TraceCarrier): Link | undefined => {
    const sc = trace.getSpanContext(extract(c, carrierGetter));
    return sc && trace.isSpanContextValid(sc) ? { context: sc } : undefined;
  };
  const wrap = (span: Span): TelemetrySpan => new OtelSpan(span, carrierOf, linkOf);
  // Nothing registered (no SDK, no propagator) means no span can record and no trace context can travel: every
  // call answers at once, before reading a header or allocating a span (ADR 0091, "No SDK, no cost"). Asked on
  // every call, so an SDK registered later is found.
  const quiet = provider === undefined && propagator === undefined ? nothingRegistered : never;
  return {
    startSpan(spanName: string, start: SpanStart = {}): TelemetrySpan {
      if (quiet()) return QUIET_SPAN;
      const parent =
        start.parent === undefined
          ? context.active()
          : typeof start.parent === 'function'
            ? extract(start.parent, readerGetter)
            : extract(start.parent, carrierGetter);
      const links: Link[] = [];
      for (const c of start.links ?? []) {
        const l = linkOf(c);
        if (l) links.push(l);
      }
      const attributes: Record<string, string | number | boolean> = {};
      for (const [k, v] of Object.entries(start.attributes ?? {})) if (v !== undefined) attributes[k] = v;
      const span = tracer().startSpan(
        spanName,
        { kind: KINDS[start.kind ?? 'internal'], attributes, links },
        parent,
      );
      return wrap(span);
    },
    activeSpan() {
      if (quiet()) return undefined;
      const span = trace.getActiveSpan();
      return span === undefined ? undefined : wrap(span);
    },
    inject(headers) {
      if (quiet()) return;
      inject(context.active(), headers);
    },
    activeIds() {
      if (quiet()) return undefined;
      const sc = trace.getActiveSpan()?.spanContext();
      return sc && trace.isSpanContextValid(sc) ? { traceId: sc.traceId, spanId: sc.spanId } : undefined;
    },
    quiet,
  };
}

/** The global provider's delegate before any registration: the API's no-op tracer provider. */
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();

/** Whether neither a tracer provider nor a propagator is registered globally (the state with no SDK started). */
function nothingRegistered(): boolean {
  const registered = trace.getTracerProvider();
  const delegate = registered instanceof ProxyTracerProvider ? registered.getDelegate() : registered;
  return delegate === NOOP_PROVIDER && propagation.fields().length === 0;
}

function never(): boolean {
  return false;
}

/** The span of every call while nothing is registered: records nothing, activates nothing, carries nothing. */
const QUIET_SPAN: TelemetrySpan = Object.freeze({
  recording: false,
  setAttribute() {},
  rename() {},
  link() {},
  fail() {},
  run: <T>(fn: () => T): T => fn(),
  carrier: (): TraceCarrier => ({}),
  end() {},
});

/**
 * A span, as the seam sees it. A class rather than an object of closures: one is made per call, turn and commit,
 * and with no SDK registered (every span non-recording) that allocation is most of what telemetry costs.
 */
class OtelSpan implements TelemetrySpan {
  readonly recording: boolean;
  constructor(
    private readonly span: Span,
    private readonly carrierOf: (span: Span) => TraceCarrier,
    private readonly linkOf: (c: TraceCarrier) => Link | undefined,
  ) {
    this.recording = span.isRecording();
  }
  setAttribute(key: string, value: string | number | boolean): void {
    if (this.recording) this.span.setAttribute(key, value);
  }
  rename(name: string): void {
    if (this.recording) this.span.updateName(name);
  }
  link(c: TraceCarrier): void {
    if (!this.recording) return;
    const l = this.linkOf(c);
    if (l) this.span.addLink(l);
  }
  fail(type: string): void {
    if (!this.recording) return;
    this.span.setAttribute('error.type', type);
    this.span.setStatus({ code: SpanStatusCode.ERROR });
  }
  run<T>(fn: () => T): T {
    // Also when not recording: an incoming trace context (sampled out, or no SDK here) still reaches the children.
    return context.with(trace.setSpan(context.active(), this.span), fn);
  }
  carrier(): TraceCarrier {
    return this.carrierOf(this.span);
  }
  end(): void {
    this.span.end();
  }
}

const defaultSetter = {
  set: (carrier: Record<string, string>, key: string, value: string) => {
    carrier[key] = value;
  },
};
