/**
 * The span file of `demo --trace` (src/otel/span-file.ts, ADR 0096): off without `A2A_ONCE_TRACE_FILE`; with a
 * file, each finished span is one JSON line (ids, parent, name, kind, attributes, times, links); a file that
 * cannot be written costs the spans and says so on stderr. The SDK is registered globally once per process, so
 * the tests share one file.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, propagation, trace } from '@opentelemetry/api';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import {
  startTraceFile,
  traceFileFromEnv,
  TRACE_FILE_ENV,
  type SpanRecord,
} from '../../src/otel/span-file.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-trace-file-'));
const file = join(dir, 'spans.jsonl');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// startTraceFile registers a tracer provider, context manager and propagator globally, as the CLI wants: each
// test's are taken back after it, so neither the next test nor a later file in this worker traces into this file.
afterEach(() => {
  trace.disable();
  context.disable();
  propagation.disable();
});

describe('the span file', () => {
  it('is off without the variable', async () => {
    expect(await traceFileFromEnv({})).toBeUndefined();
    expect(await traceFileFromEnv({ [TRACE_FILE_ENV]: '' })).toBeUndefined();
  });

  it('holds one JSON line per finished span, a child naming its parent', async () => {
    const { telemetry } = await startTraceFile(file);
    const parent = telemetry.startSpan('SendMessage', {
      kind: 'server',
      attributes: { 'a2a_once.admission.outcome': 'claimed' },
    });
    parent.run(() => telemetry.startSpan('a2a_once.step').end());
    parent.end();
    const records = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as SpanRecord);
    expect(records.map((r) => [r.name, r.kind])).toEqual([
      ['a2a_once.step', 'INTERNAL'],
      ['SendMessage', 'SERVER'],
    ]);
    const [step, send] = records as [SpanRecord, SpanRecord];
    expect(step.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(step.traceId).toBe(send.traceId);
    expect(step.parentSpanId).toBe(send.spanId);
    expect(send.parentSpanId).toBeUndefined();
    expect(send.attributes).toEqual({ 'a2a_once.admission.outcome': 'claimed' });
    expect(send.endMs).toBeGreaterThanOrEqual(send.startMs);
    expect(send.startMs).toBeGreaterThan(Date.now() - 60_000);
    expect(send.links).toEqual([]);
  });

  it('says on stderr when a span cannot be written', async () => {
    const { telemetry } = await startTraceFile(file);
    rmSync(file);
    mkdirSync(file); // appending to a directory fails
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      telemetry.startSpan('SendMessage').end();
      expect(stderr.mock.calls.map((c) => String(c[0]))).toEqual([
        expect.stringMatching(new RegExp(`^a2a-once: 1 span\\(s\\) not written to ${file}: EISDIR`)),
      ]);
    } finally {
      stderr.mockRestore();
    }
  });
});
