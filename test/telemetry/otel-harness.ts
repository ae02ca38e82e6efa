/**
 * OpenTelemetry as a user registers it, for the telemetry tests: a `BasicTracerProvider` exporting to memory
 * through a `SimpleSpanProcessor`, the AsyncLocalStorage context manager and the W3C trace-context propagator,
 * all global (ADR 0091: `openTelemetry()` uses what is registered globally).
 */
import { context, propagation, trace, SpanKind } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';

/** The registered OpenTelemetry of one test file. */
export interface RegisteredOtel {
  readonly exporter: InMemorySpanExporter;
  spans(): ReadableSpan[];
  unregister(): Promise<void>;
}

/** Registers a provider, a context manager and the W3C propagator globally. */
export function registerOtel(): RegisteredOtel {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return {
    exporter,
    spans: () => exporter.getFinishedSpans(),
    unregister: async () => {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

export const KIND = SpanKind;

/** The span's parent span id, if any. */
export function parentOf(s: ReadableSpan): string | undefined {
  return s.parentSpanContext?.spanId;
}

/** The span with `spanId` among `spans`. */
export function byId(spans: readonly ReadableSpan[], spanId: string | undefined): ReadableSpan | undefined {
  return spans.find((s) => s.spanContext().spanId === spanId);
}

/** The names of `s` and its ancestors, nearest first, as far as `spans` holds them. */
export function ancestry(spans: readonly ReadableSpan[], s: ReadableSpan): ReadableSpan[] {
  const out: ReadableSpan[] = [];
  let cur: ReadableSpan | undefined = byId(spans, parentOf(s));
  while (cur !== undefined) {
    out.push(cur);
    cur = byId(spans, parentOf(cur));
  }
  return out;
}

/** Polls until `check` holds (real time). */
export async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
