/**
 * A recovery takeover in the trace (ADR 0092): a replica that takes over a task whose worker was lost runs the
 * resumed turn in a span marked `a2a_once.turn.resumed`, the child of the call that touched the task, linked to
 * the send that created the task (its trace context kept in the store, ADR 0093).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openTelemetry } from '../../src/otel/index.js';
import { TRACE_CONTEXT_STEP } from '../../src/server/observability/task-traces.js';
import { rpcRequest } from '../helpers/http.js';
import {
  freshStore,
  GatedAgent,
  LEASE_MS,
  replica,
  replicaStore,
  startTurn,
  until as untilAsync,
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

it('links the resumed turn to the send that created the task, from the trace context kept with it', async () => {
  otel.exporter.reset();
  const s = await freshStore('sqlite');
  const lost = new GatedAgent(true);
  const a = replica(s, s.store, lost, { telemetry: openTelemetry() });
  const started = lost.nextTurn(0);
  const CREATED = '0af7651916cd43dd8448eb211c80319c';
  const sent = await a.fetch(
    rpcRequest(
      'SendMessage',
      { message: userMessage('render it again'), configuration: { returnImmediately: true } },
      { headers: { traceparent: `00-${CREATED}-b7ad6b7169203331-01` } },
    ),
  );
  const taskId = ((await sent.json()) as { result: { task: { id: string } } }).result.task.id;
  await started;
  const send = otel.spans().find((x) => x.kind === KIND.SERVER && x.name === 'SendMessage')!;
  // The creating send's context reaches the store off the send's path.
  await untilAsync(
    async () => (await s.store.getStep({ tenant: '', owner: '' }, taskId, TRACE_CONTEXT_STEP)) !== undefined,
  );

  const agent = new GatedAgent(true);
  const b = replica(s, await replicaStore(s), agent, { telemetry: openTelemetry() });
  s.clock.advance(LEASE_MS + 1);
  agent.gate(0).open();
  await b.fetch(
    rpcRequest('GetTask', { id: taskId }, { headers: { traceparent: `00-${TRACE}-00f067aa0ba902b7-01` } }),
  );
  const resumedTurn = () =>
    otel
      .spans()
      .find((x) => x.name === 'a2a_once.agent.turn' && x.attributes['a2a_once.turn.resumed'] === true);
  await until(() => resumedTurn() !== undefined && resumedTurn()!.links.length > 0);
  const turn = resumedTurn()!;
  expect(turn.spanContext().traceId).toBe(TRACE);
  expect(turn.links.map((l) => [l.context.traceId, l.context.spanId])).toEqual([
    [CREATED, send.spanContext().spanId],
  ]);
  lost.gate(0).open();
});
