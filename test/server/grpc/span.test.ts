/**
 * A gRPC call's SERVER span (ADR 0092, ADR 0106): named by the A2A method, with the A2A attributes of the HTTP
 * spans plus `rpc.system: grpc`, the service and method, the gRPC status code and `a2a.protocol.binding: GRPC`;
 * a refused call records its error type; the trace context in `traceparent` metadata is its parent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTelemetry } from '../../../src/otel/index.js';
import { registerOtel, type RegisteredOtel } from '../../telemetry/otel-harness.js';
import { startGrpcFixture, userMessage, type GrpcFixture } from './grpc-fixture.js';

let otel: RegisteredOtel;
let f: GrpcFixture;
beforeAll(async () => {
  otel = registerOtel();
  f = await startGrpcFixture({ telemetry: openTelemetry() });
});
afterAll(async () => {
  await f.close();
  await otel.unregister();
});

describe('gRPC server span', () => {
  it('is the A2A call span with the rpc attributes, under the caller trace', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    await f.client.unary(
      'SendMessage',
      { tenant: 'acme', message: userMessage('hello') },
      { 'a2a-version': '1.0', traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    );
    const span = otel.spans().find((s) => s.name === 'SendMessage');
    expect(span).toBeDefined();
    expect(span!.spanContext().traceId).toBe(traceId);
    expect(span!.attributes).toMatchObject({
      'rpc.system': 'grpc',
      'rpc.service': 'lf.a2a.v1.A2AService',
      'rpc.method': 'SendMessage',
      'rpc.grpc.status_code': 0,
      'a2a.protocol.binding': 'GRPC',
      'a2a.method.name': 'SendMessage',
      'a2a.tenant': 'acme',
      'a2a.task.state': 'TASK_STATE_COMPLETED',
    });
  });

  it('a refused call records its error type and status code', async () => {
    await f.client.unary('GetTask', { id: 'missing' }).catch(() => undefined);
    const span = otel.spans().find((s) => s.name === 'GetTask');
    expect(span?.attributes).toMatchObject({ 'error.type': 'TaskNotFoundError', 'rpc.grpc.status_code': 5 });
  });
});
