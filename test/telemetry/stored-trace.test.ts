/**
 * The trace context of a task kept with the task (ADR 0093): on every store, a keyed retry answered by another
 * replica (its own memory knows nothing of the task) links to the span of the send that created the task, and a
 * push delivery made there continues the task's trace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_METADATA_KEY, mintKey } from '../../src/idempotency/index.js';
import { openTelemetry } from '../../src/otel/index.js';
import type { AgentExecutor } from '../../src/server/agent-executor.js';
import { TRACE_CONTEXT_STEP } from '../../src/server/observability/task-traces.js';
import { rpcRequest, userMsg } from '../helpers/http.js';
import { freshStore, replica, replicaStore, STORE_KINDS } from '../server/leases/harness.js';
import { KIND, registerOtel, type RegisteredOtel } from './otel-harness.js';

let otel: RegisteredOtel;
beforeAll(() => {
  otel = registerOtel();
});
afterAll(async () => {
  await otel.unregister();
});

const done: AgentExecutor = { execute: (ctx) => ctx.complete('done') };
const TRACE = 'a3ce929d0e0e47364bf92f3577b34da6';

describe.each(STORE_KINDS)('on the %s store', (kind) => {
  it('links a retry answered by another replica to the send that created the task', async () => {
    otel.exporter.reset();
    const s = await freshStore(kind);
    const a = replica(s, s.store, done, { telemetry: openTelemetry() });
    const b = replica(s, await replicaStore(s), done, { telemetry: openTelemetry() });
    const key = mintKey();
    const message = {
      ...userMsg(crypto.randomUUID(), 'once'),
      metadata: { [IDEMPOTENCY_METADATA_KEY]: key },
    };
    const headers = { traceparent: `00-${TRACE}-00f067aa0ba902b7-01` };
    const first = await a.fetch(rpcRequest('SendMessage', { message }, { headers }));
    const taskId = ((await first.json()) as { result: { task: { id: string } } }).result.task.id;
    await a.close(); // the stored context is written by then
    const step = await s.store.getStep({ tenant: '', owner: '' }, taskId, TRACE_CONTEXT_STEP);
    expect((step?.result as { traceparent?: string }).traceparent).toMatch(new RegExp(`^00-${TRACE}-`));
    const retry = await b.fetch(rpcRequest('SendMessage', { message }, { headers }));
    expect(retry.headers.get('a2a-once-admission')).toBe('replayed');
    const sends = otel.spans().filter((x) => x.kind === KIND.SERVER);
    expect(sends.map((x) => x.attributes['a2a_once.admission.outcome'])).toEqual(['claimed', 'replayed']);
    expect(sends[1]!.links.map((l) => l.context.spanId)).toEqual([sends[0]!.spanContext().spanId]);
  });
});
