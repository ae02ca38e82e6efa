/**
 * A recovery takeover in the trace (ADR 0092): a replica that takes over a task whose worker was lost runs the
 * resumed turn in a span marked `a2a_once.turn.resumed`, the child of the call that touched the task.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openTelemetry } from '../../src/otel/index.js';
import { rpcRequest } from '../helpers/http.js';
import {
  freshStore,
  GatedAgent,
  LEASE_MS,
  replica,
  replicaStore,
  startTurn,
  userMessage,
} from '../server/leases/harness.js';
import { KIND, registerOtel, until, type RegisteredOtel } from './otel-harness.js';

let otel: RegisteredOtel;
beforeAll(() => {
  otel = registerOtel();
});
afterAll(async () => {
  await otel.unregister();
});

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

it('marks the resumed turn of a takeover, under the GetTask that touched the lost task', async () => {
  const s = await freshStore('memory');
  const lost = new GatedAgent(true);
  const a = replica(s, s.store, lost);
  const { task } = await startTurn(a, lost, userMessage('render the report'));
  const agent = new GatedAgent(true);
  const b = replica(s, await replicaStore(s), agent, { telemetry: openTelemetry() });
  s.clock.advance(LEASE_MS + 1); // replica A is gone: nobody renewed its lease
  agent.gate(0).open();
  const res = await b.fetch(
    rpcRequest('GetTask', { id: task.id }, { headers: { traceparent: `00-${TRACE}-00f067aa0ba902b7-01` } }),
  );
  expect(res.status).toBe(200);
  await until(() => otel.spans().some((x) => x.name === 'a2a_once.agent.turn'));
  const get = otel.spans().find((x) => x.kind === KIND.SERVER)!;
  const turn = otel.spans().find((x) => x.name === 'a2a_once.agent.turn')!;
  expect(get.name).toBe('GetTask');
  expect(turn.spanContext().traceId).toBe(TRACE);
  expect(turn.parentSpanContext?.spanId).toBe(get.spanContext().spanId);
  expect(turn.attributes).toMatchObject({ 'a2a_once.turn.resumed': true, 'a2a.task.id': task.id });
  expect(turn.attributes['a2a_once.fence']).toBe(2);
  lost.gate(0).open();
});
