/**
 * With no SDK started (no tracer provider, no propagator registered globally) `openTelemetry()` answers every call
 * at once (ADR 0091, "No SDK, no cost"): it reads no header of the request, starts no span, activates nothing. An
 * SDK registered afterwards is found by the next call, and a registered propagator alone keeps trace context
 * flowing.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { openTelemetry } from '../../src/otel/index.js';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

afterEach(() => {
  trace.disable();
  propagation.disable();
  context.disable();
});

/** A header reader that counts what it was asked. */
function countingHeaders() {
  const asked: string[] = [];
  const read = (name: string) => {
    asked.push(name);
    return name === 'traceparent' ? TRACEPARENT : null;
  };
  return { asked, read };
}

describe('openTelemetry() with nothing registered', () => {
  it('reads no header, records nothing, activates nothing and injects nothing', () => {
    const telemetry = openTelemetry();
    const headers = countingHeaders();
    const span = telemetry.startSpan('SendMessage', { kind: 'server', parent: headers.read });
    expect(headers.asked).toEqual([]);
    expect(span.recording).toBe(false);
    expect(span.carrier()).toEqual({});
    const inside = span.run(() => ({ active: telemetry.activeSpan(), ids: telemetry.activeIds() }));
    expect(inside).toEqual({ active: undefined, ids: undefined });
    const out: Record<string, string> = {};
    span.run(() => telemetry.inject(out));
    expect(out).toEqual({});
    span.end();
    // No span is made: every call answers with the same one.
    expect(telemetry.startSpan('GetTask')).toBe(span);
  });

  it('finds an SDK registered after it was made', () => {
    const telemetry = openTelemetry();
    expect(telemetry.startSpan('before').recording).toBe(false);
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const headers = countingHeaders();
    const span = telemetry.startSpan('SendMessage', { kind: 'server', parent: headers.read });
    expect(headers.asked).toContain('traceparent');
    expect(span.recording).toBe(true);
    const out: Record<string, string> = {};
    span.run(() => telemetry.inject(out));
    expect(out.traceparent?.split('-')[1]).toBe(TRACEPARENT.split('-')[1]);
    span.end();
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['SendMessage']);
  });

  it('passes an incoming trace context on when only a propagator is registered (a proxy with no SDK)', () => {
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const telemetry = openTelemetry();
    const headers = countingHeaders();
    const span = telemetry.startSpan('SendMessage', { kind: 'server', parent: headers.read });
    expect(span.recording).toBe(false);
    const out: Record<string, string> = {};
    span.run(() => telemetry.inject(out));
    expect(out.traceparent).toBe(TRACEPARENT);
  });
});
