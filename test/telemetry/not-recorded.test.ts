/**
 * Telemetry that nobody records costs no store write (ADR 0093): with `openTelemetry()` over a provider that samples
 * nothing (the trace context still flows, flagged not sampled), a new task keeps no trace context in the store and
 * its spans are not described, and no turn looks the context up; with one that samples everything, it does. The same send, side by side.
 */
import { context, propagation } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTelemetry } from '../../src/otel/index.js';
import { createA2AServer } from '../../src/server/create-server.js';
import { silentLogger } from '../../src/server/observability/logger.js';
import { TRACE_CONTEXT_STEP } from '../../src/server/observability/task-traces.js';
import { MemoryTaskStore } from '../../src/store/memory/index.js';
import { rpcRequest, userMsg } from '../helpers/http.js';

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
});
afterAll(() => {
  context.disable();
  propagation.disable();
});

describe.each([
  ['samples nothing', new AlwaysOffSampler(), false],
  ['samples everything', new AlwaysOnSampler(), true],
] as const)('a provider that %s', (_, sampler, recorded) => {
  it(`${recorded ? 'keeps' : 'keeps no'} trace context with the task, and ${recorded ? 'exports' : 'exports no'} spans`, async () => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({
      sampler,
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const store = new MemoryTaskStore();
    // Counts the look-ups of a task's trace context (a store read per turn when a turn is recorded).
    let lookups = 0;
    const getStep = store.getStep.bind(store);
    store.getStep = (scope, taskId, name) => {
      if (name === TRACE_CONTEXT_STEP) lookups++;
      return getStep(scope, taskId, name);
    };
    const server = createA2AServer({
      card: { name: 'quiet', description: 'not recorded' },
      agent: { execute: (ctx) => ctx.complete('done') },
      store,
      logger: silentLogger,
      telemetry: openTelemetry({ tracerProvider }),
    });
    const res = await server.fetch(
      rpcRequest('SendMessage', { message: userMsg(crypto.randomUUID(), 'hi') }),
    );
    const taskId = ((await res.json()) as { result: { task: { id: string } } }).result.task.id;
    await server.close();
    if (!recorded) expect(lookups).toBe(0);
    const step = await store.getStep({ tenant: '', owner: '' }, taskId, TRACE_CONTEXT_STEP);
    expect(step !== undefined).toBe(recorded);
    expect(exporter.getFinishedSpans().length > 0).toBe(recorded);
  });
});
