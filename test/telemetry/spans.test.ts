/**
 * The spans one server and one client make (ADR 0091, ADR 0092), with OpenTelemetry registered globally: nothing
 * without the `telemetry` option; the SERVER span continues the caller's `traceparent` on both bindings; refusals
 * say why (`error.type`, the admission outcome); log lines carry `trace_id` / `span_id`; a push POST carries the
 * trace of the send that created the task, in a span per attempt.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient } from '../../src/client/index.js';
import { IDEMPOTENCY_METADATA_KEY, mintKey } from '../../src/idempotency/index.js';
import { openTelemetry } from '../../src/otel/index.js';
import { createA2AServer } from '../../src/server/create-server.js';
import { serveNode } from '../../src/server/node/index.js';
import type { LogFields, ServerLogger } from '../../src/server/observability/logger.js';
import { silentLogger } from '../../src/server/observability/logger.js';
import { pushServer, FAST_PUSH } from '../server/push/push-server.js';
import { startReceiver } from '../server/push/receiver.js';
import { readSse, rpcRequest, restRequest, userMsg } from '../helpers/http.js';

const msg = (text: string) => userMsg(crypto.randomUUID(), text);
import { KIND, registerOtel, until, type RegisteredOtel } from './otel-harness.js';
import { closeNode } from '../helpers/close-node.js';

let otel: RegisteredOtel;
beforeAll(() => {
  otel = registerOtel();
});
afterAll(async () => {
  await otel.unregister();
});
afterEach(() => otel.exporter.reset());

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const PARENT = 'b7ad6b7169203331';
const traceparent = `00-${TRACE}-${PARENT}-01`;

const echo = {
  execute: async (ctx: { complete(text: string): Promise<void>; userText: string }) =>
    ctx.complete(`echo: ${ctx.userText}`),
};
const card = { name: 'echo', description: 'echoes' };

function server(extra: Parameters<typeof createA2AServer>[0] extends infer O ? Partial<O> : never = {}) {
  return createA2AServer({ agent: echo, card, retention: false, logger: silentLogger, ...extra });
}

describe('without the telemetry option', () => {
  it('emits no span and sends no traceparent, though a provider is registered', async () => {
    const s = server();
    const node = await serveNode(s.fetch);
    const sent: Headers[] = [];
    try {
      const client = await A2AClient.fromCardUrl(node.url, {
        fetch: (input, init) => {
          sent.push(new Headers(init?.headers));
          return fetch(input, init);
        },
      });
      // Even a request carrying a trace context gets no span.
      const res = await s.fetch(
        rpcRequest('SendMessage', { message: msg('hi') }, { headers: { traceparent } }),
      );
      expect(res.status).toBe(200);
      await client.send('hello');
      expect(sent.length).toBeGreaterThan(0);
      for (const h of sent) expect(h.has('traceparent')).toBe(false);
      expect(otel.spans()).toEqual([]);
    } finally {
      await closeNode(node);
      await s.close();
    }
  });

  it('leaves the host logger as it is', () => {
    const s = server();
    expect(s.handler.logger).toBe(silentLogger);
    return s.close();
  });
});

describe('the SERVER span of a call', () => {
  const telemetry = openTelemetry();

  it('continues the traceparent of a JSON-RPC request, named and attributed by the method', async () => {
    const s = server({ telemetry });
    const res = await s.fetch(
      rpcRequest('SendMessage', { message: msg('hi') }, { headers: { traceparent } }),
    );
    expect(res.status).toBe(200);
    await until(() => otel.spans().some((x) => x.name === 'a2a_once.agent.turn'));
    const span = otel.spans().find((x) => x.kind === KIND.SERVER)!;
    expect(span.name).toBe('SendMessage');
    expect(span.spanContext().traceId).toBe(TRACE);
    expect(span.parentSpanContext?.spanId).toBe(PARENT);
    expect(span.attributes).toMatchObject({
      'a2a.method.name': 'SendMessage',
      'gen_ai.agent.name': 'echo',
      'a2a.task.state': 'TASK_STATE_COMPLETED',
      'a2a_once.admission.outcome': 'claimed',
    });
    await s.close();
  });

  it('does the same on the REST binding, with the tenant', async () => {
    const s = server({ telemetry });
    const res = await s.fetch(
      restRequest('POST', '/acme/message:send', { message: msg('hi') }, { headers: { traceparent } }),
    );
    expect(res.status).toBe(200);
    const span = otel.spans().find((x) => x.kind === KIND.SERVER)!;
    expect([span.name, span.spanContext().traceId]).toEqual(['SendMessage', TRACE]);
    expect(span.attributes).toMatchObject({ 'a2a.method.name': 'SendMessage', 'a2a.tenant': 'acme' });
    await s.close();
  });

  it('says error.type on a refused call, and conflict for a key reused for another message', async () => {
    const s = server({ telemetry });
    const missing = await s.fetch(rpcRequest('GetTask', { id: 'no-such-task' }));
    expect(missing.status).toBe(200);
    const key = mintKey();
    const keyed = (text: string) => ({ ...msg(text), metadata: { [IDEMPOTENCY_METADATA_KEY]: key } });
    await s.fetch(rpcRequest('SendMessage', { message: keyed('first') }));
    await s.fetch(rpcRequest('SendMessage', { message: keyed('second') }));
    const servers = otel.spans().filter((x) => x.kind === KIND.SERVER);
    const get = servers.find((x) => x.name === 'GetTask')!;
    expect(get.attributes['error.type']).toBe('TaskNotFoundError');
    expect(get.status.code).toBe(2); // ERROR
    const sends = servers.filter((x) => x.name === 'SendMessage');
    expect(sends.map((x) => x.attributes['a2a_once.admission.outcome'])).toEqual(['claimed', 'conflict']);
    expect(sends[1]!.attributes['error.type']).toBe('IdempotencyKeyReusedError');
    for (const x of otel.spans())
      for (const v of Object.values(x.attributes)) expect(String(v)).not.toContain(key);
    await s.close();
  });
});

describe('a task across sends', () => {
  it('links a continuation and its turn to the send that created the task', async () => {
    const s = createA2AServer({
      agent: {
        async execute(ctx) {
          if (!ctx.isContinuation) await ctx.requireInput('which region?');
          else await ctx.complete('done');
        },
      },
      card,
      retention: false,
      logger: silentLogger,
      telemetry: openTelemetry(),
    });
    const first = await s.fetch(rpcRequest('SendMessage', { message: msg('start') }));
    const taskId = ((await first.json()) as { result: { task: { id: string } } }).result.task.id;
    await s.fetch(rpcRequest('SendMessage', { message: { ...msg('eu'), taskId } }));
    await until(() => otel.spans().filter((x) => x.name === 'a2a_once.agent.turn').length === 2);
    const sends = otel.spans().filter((x) => x.kind === KIND.SERVER);
    expect(sends.map((x) => x.attributes['a2a_once.admission.outcome'])).toEqual(['claimed', 'continued']);
    const [created, continued] = sends as [(typeof sends)[0], (typeof sends)[0]];
    expect(continued.links.map((l) => l.context.spanId)).toEqual([created.spanContext().spanId]);
    const turns = otel.spans().filter((x) => x.name === 'a2a_once.agent.turn');
    const second = turns.find((t) => t.parentSpanContext?.spanId === continued.spanContext().spanId)!;
    expect(second.links.map((l) => l.context.spanId)).toEqual([created.spanContext().spanId]);
    expect(second.attributes['a2a.task.state']).toBe('TASK_STATE_COMPLETED');
    const firstTurn = turns.find((t) => t !== second)!;
    expect(firstTurn.links).toEqual([]); // its parent is the creating send: no link to itself
    expect(firstTurn.attributes['a2a.task.state']).toBe('TASK_STATE_INPUT_REQUIRED');
    await s.close();
  });

  it("keeps a stream's SERVER span open until the stream ends", async () => {
    const s = server({ telemetry: openTelemetry(), card: { ...card, capabilities: { streaming: true } } });
    const res = await s.fetch(
      rpcRequest('SendStreamingMessage', { message: msg('stream') }, { headers: { traceparent } }),
    );
    expect(otel.spans().filter((x) => x.kind === KIND.SERVER)).toEqual([]);
    const frames = await readSse(res);
    expect(frames.length).toBeGreaterThan(0);
    await until(() => otel.spans().some((x) => x.kind === KIND.SERVER));
    const span = otel.spans().find((x) => x.kind === KIND.SERVER)!;
    expect([span.name, span.spanContext().traceId]).toEqual(['SendStreamingMessage', TRACE]);
    expect(span.attributes['a2a_once.admission.outcome']).toBe('claimed');
    await s.close();
  });
});

describe('log lines with telemetry', () => {
  it('carry trace_id and span_id of the span they were written in', async () => {
    const lines: { message: string; fields: LogFields | undefined }[] = [];
    const capture = (message: string, fields?: LogFields) => lines.push({ message, fields });
    const logger: ServerLogger = { debug: capture, info: capture, warn: capture, error: capture };
    const s = createA2AServer({
      agent: {
        execute: () => {
          throw new Error('the agent broke');
        },
      },
      card,
      retention: false,
      logger,
      telemetry: openTelemetry(),
    });
    await s.fetch(rpcRequest('SendMessage', { message: msg('break') }, { headers: { traceparent } }));
    await until(() => otel.spans().some((x) => x.name === 'a2a_once.agent.turn'));
    const turn = otel.spans().find((x) => x.name === 'a2a_once.agent.turn')!;
    const line = lines.find((l) => l.fields?.errorId !== undefined);
    expect(line, JSON.stringify(lines)).toBeDefined();
    expect(line!.fields).toMatchObject({ trace_id: TRACE, span_id: turn.spanContext().spanId });
    await s.close();
  });
});

describe('push delivery with telemetry', () => {
  it('POSTs with the traceparent of the task trace, in a span per attempt with seq and status', async () => {
    const receiver = await startReceiver();
    const s = pushServer(FAST_PUSH, { telemetry: openTelemetry() });
    try {
      const res = await s.fetch(
        rpcRequest(
          'SendMessage',
          {
            message: msg('push me'),
            configuration: { taskPushNotificationConfig: { id: 'c1', url: `${receiver.url}/hook` } },
          },
          { headers: { traceparent } },
        ),
      );
      expect(res.status).toBe(200);
      await receiver.until((r) => r.received.some((x) => x.body.includes('TASK_STATE_COMPLETED')));
      for (const r of receiver.received)
        expect(String(r.headers.traceparent)).toMatch(new RegExp(`^00-${TRACE}-`));
      const posts = receiver.received.length;
      await until(() => otel.spans().filter((x) => x.name === 'a2a_once.push.delivery').length >= posts);
      const pushes = otel.spans().filter((x) => x.name === 'a2a_once.push.delivery');
      const send = otel.spans().find((x) => x.kind === KIND.SERVER)!;
      for (const p of pushes) {
        expect(p.kind).toBe(KIND.CLIENT);
        expect(p.spanContext().traceId).toBe(TRACE);
        expect(p.parentSpanContext?.spanId).toBe(send.spanContext().spanId);
        expect(p.attributes).toMatchObject({ 'a2a_once.push.status': 204, 'a2a_once.push.outcome': 'ack' });
      }
      const seqs = pushes.map((p) => p.attributes['a2a_once.push.seq']);
      expect(new Set(seqs)).toEqual(new Set(receiver.received.map((r) => r.seq)));
      // Each POST names its own attempt span.
      const named = receiver.received.map((r) => String(r.headers.traceparent).split('-')[2]);
      expect(new Set(named)).toEqual(new Set(pushes.map((p) => p.spanContext().spanId)));
    } finally {
      await s.close();
      await receiver.close();
    }
  });
});
