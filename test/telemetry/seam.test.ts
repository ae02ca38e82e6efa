/**
 * The telemetry seam on its own (ADR 0091, ADR 0093): only `src/otel/` imports `@opentelemetry/api`, so every
 * other subpath loads without it; the in-process memory of task traces is bounded; the log wrapper adds ids only
 * inside a span.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { trace } from '@opentelemetry/api';
import { openTelemetry } from '../../src/otel/index.js';
import type { LogFields, ServerLogger } from '../../src/server/observability/logger.js';
import { TaskTraces } from '../../src/server/observability/task-traces.js';
import { withTraceIds } from '../../src/server/observability/trace-log.js';
import { registerOtel } from './otel-harness.js';

const SRC = join(import.meta.dirname, '..', '..', 'src');

describe('the seam', () => {
  it('keeps @opentelemetry out of every file but src/otel/', () => {
    const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const importers = files.filter((f) => /from '@opentelemetry\//.test(readFileSync(join(SRC, f), 'utf8')));
    expect(importers.length).toBeGreaterThan(0);
    expect(importers.filter((f) => relative('otel', f).startsWith('..'))).toEqual([]);
  });

  it('remembers the trace of at most `max` tasks, forgetting the oldest', () => {
    const traces = new TaskTraces(undefined, 2);
    const scope = { tenant: '', owner: '' };
    traces.remember(scope, 'a', { traceparent: 'A' });
    traces.remember(scope, 'b', { traceparent: 'B' });
    traces.remember(scope, 'c', { traceparent: 'C' });
    expect([traces.of(scope, 'a'), traces.of(scope, 'b'), traces.of(scope, 'c')]).toEqual([
      undefined,
      { traceparent: 'B' },
      { traceparent: 'C' },
    ]);
    expect(traces.of({ tenant: 'other', owner: '' }, 'c')).toBeUndefined();
    expect(traces.size).toBe(2);
  });

  it('adds trace_id and span_id to a log line only while a span is active', async () => {
    const otel = registerOtel();
    try {
      const lines: (LogFields | undefined)[] = [];
      const capture = (_m: string, f?: LogFields) => void lines.push(f);
      const host: ServerLogger = { debug: capture, info: capture, warn: capture, error: capture };
      const logger = withTraceIds(host, openTelemetry());
      logger.warn('outside', { taskId: 't' });
      trace.getTracer('test').startActiveSpan('inside', (active) => {
        logger.error('inside', { taskId: 't' });
        active.end();
      });
      expect(lines[0]).toEqual({ taskId: 't' });
      expect(lines[1]?.taskId).toBe('t');
      expect(lines[1]?.trace_id).toMatch(/^[0-9a-f]{32}$/);
      expect(lines[1]!.span_id).toMatch(/^[0-9a-f]{16}$/);
      expect(withTraceIds(host, undefined)).toBe(host);
    } finally {
      await otel.unregister();
    }
  });
});
