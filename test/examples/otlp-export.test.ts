/**
 * examples/otlp-export.ts against a small HTTP server standing in for an OpenTelemetry collector's OTLP/HTTP
 * receiver: the exporter's POSTs arrive as JSON, and hold the client's and the server's spans of one send, in
 * one trace, the server's send span saying how it was admitted.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_NAME, startTracedAgent } from '../../examples/otlp-export.js';

interface OtlpSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes?: { key: string; value: { stringValue?: string; intValue?: number; boolValue?: boolean } }[];
}

interface OtlpRequest {
  resourceSpans: {
    resource?: { attributes?: OtlpSpan['attributes'] };
    scopeSpans: { spans: OtlpSpan[] }[];
  }[];
}

/** OTLP's `SpanKind`: 2 is SERVER, 3 is CLIENT. */
const SERVER = 2;
const CLIENT = 3;

const attr = (s: OtlpSpan, key: string) => s.attributes?.find((a) => a.key === key)?.value.stringValue;

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks);
  return req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
}

describe('examples/otlp-export', () => {
  const posts: { path: string; contentType: string | undefined; json: OtlpRequest }[] = [];
  const collector = createServer((req, res) => {
    void body(req).then((b) => {
      posts.push({
        path: req.url ?? '',
        contentType: req.headers['content-type'],
        json: JSON.parse(b.toString('utf8')) as OtlpRequest,
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  let collectorUrl = '';
  beforeAll(async () => {
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    collectorUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/v1/traces`;
  });
  afterAll(async () => {
    await new Promise((r) => collector.close(r));
  });

  it("sends the client's and the server's spans of a send to the collector, as JSON, in one trace", async () => {
    const agent = await startTracedAgent(collectorUrl);
    try {
      expect(await agent.send('ACME, March')).toBe('TASK_STATE_COMPLETED');
    } finally {
      await agent.close(); // flushes the batch
    }
    expect(posts.length).toBeGreaterThan(0);
    for (const p of posts) {
      expect(p.path).toBe('/v1/traces');
      expect(p.contentType).toMatch(/^application\/json/);
    }
    const spans = posts.flatMap((p) =>
      p.json.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)),
    );
    // Every batch names the service (a viewer lists the spans under it).
    for (const r of posts.flatMap((p) => p.json.resourceSpans))
      expect(r.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue).toBe(
        SERVICE_NAME,
      );
    const named = (name: string, kind?: number) =>
      spans.filter((s) => s.name === name && (kind === undefined || s.kind === kind));

    const [called] = named('SendMessage', CLIENT);
    const [served] = named('SendMessage', SERVER);
    expect(called).toBeDefined();
    expect(served).toBeDefined();
    expect(attr(served!, 'a2a_once.admission.outcome')).toBe('claimed');
    expect(named('a2a_once.agent.turn')).toHaveLength(1);
    expect(named('a2a_once.step').map((s) => attr(s, 'a2a_once.step.name'))).toContain('send-invoice');

    // One trace: the client's send is its root, the server's span continues it through traceparent.
    const send = [called!, served!, ...named('a2a_once.agent.turn'), ...named('a2a_once.step')];
    expect(new Set(send.map((s) => s.traceId))).toEqual(new Set([called!.traceId]));
    expect(called!.parentSpanId ?? '').toBe('');
    const ids = new Set(spans.map((s) => s.spanId));
    expect(ids.has(served!.parentSpanId!)).toBe(true);
  });
});
