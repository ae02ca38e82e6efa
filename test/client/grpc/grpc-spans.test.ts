/**
 * The client's spans over gRPC (ADR 0092, ADR 0110): each attempt's trace context travels as `traceparent`
 * metadata, so our gRPC server's SERVER span is the attempt's child, and the call's span says how the send was
 * admitted, read from the answer's `a2a-once-admission` metadata as the HTTP bindings read it from headers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient } from '../../../src/client/index.js';
import { grpcTransport } from '../../../src/client/grpc/index.js';
import { openTelemetry } from '../../../src/otel/index.js';
import { KIND, registerOtel, type RegisteredOtel } from '../../telemetry/otel-harness.js';
import { startOnceGrpcAgent, type OnceGrpcAgent } from './once-grpc-agent.js';

let otel: RegisteredOtel;
let agent: OnceGrpcAgent;
beforeAll(async () => {
  otel = registerOtel();
  agent = await startOnceGrpcAgent({ extras: { telemetry: openTelemetry() } });
});
afterAll(async () => {
  await agent.close();
  await otel.unregister();
});

describe('spans of a gRPC call', () => {
  it('the server span is the attempt span’s child, and the call span names the admission outcome', async () => {
    const client = A2AClient.fromCard(await agent.card(), {
      transports: [grpcTransport({ insecure: true })],
      preferredBindings: ['GRPC'],
      telemetry: openTelemetry(),
    });
    const key = 'grpc-span-key-00000001';
    await client.send('traced', { key });
    await client.send('traced', { key });
    const spans = otel.spans();
    const calls = spans.filter((s) => s.kind === KIND.CLIENT && s.name === 'SendMessage');
    expect(calls.map((s) => s.attributes['a2a_once.admission.outcome'])).toEqual(['claimed', 'replayed']);
    const attempts = spans.filter((s) => s.kind === KIND.CLIENT && s.name === 'a2a_once.attempt');
    const servers = spans.filter((s) => s.kind === KIND.SERVER && s.name === 'SendMessage');
    expect(servers).toHaveLength(2);
    for (const server of servers) {
      const parent = attempts.find((a) => a.spanContext().spanId === server.parentSpanContext?.spanId);
      expect(parent?.spanContext().traceId).toBe(server.spanContext().traceId);
      expect(
        server.attributes['a2a.protocol.binding'] ?? server.attributes['a2a_once.binding'],
      ).toBeDefined();
    }
  });
});
