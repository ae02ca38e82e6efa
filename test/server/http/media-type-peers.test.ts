/**
 * Peers of both A2A versions against our server, and our client against servers of both versions (ADR 0042):
 * - the official `@a2a-js/sdk` client (v1.0.1: `Accept: application/a2a+json, application/json`),
 * - a v1.0.0-style client: plain fetch, `Content-Type: application/json`, no `Accept` or `*\/*`,
 * - our own client, which sends what a v1.0.1 server expects and reads an answer of either JSON type.
 * Every exchange goes through a recording fetch into the server in-process, so the test sees the headers.
 */
import { SendMessageRequest, TaskState, type Task, type Message } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { TaskNotFoundError as JsTaskNotFoundError } from '@a2a-js/sdk/errors';
import { afterAll, describe, expect, it } from 'vitest';
import { A2AClient } from '../../../src/client/index.js';
import { TaskNotFoundError } from '../../../src/protocol/errors.js';
import { BASE, readSse, uid, userMsg, V1 } from '../../helpers/http.js';
import { builtinServer } from './fixtures.js';

const JSON_TYPE = 'application/json';
const A2A_TYPE = 'application/a2a+json';

const tck = builtinServer('tck');

afterAll(async () => {
  await tck.close();
});

/** One request and the answer's media type, as seen on the wire. */
interface Seen {
  readonly method: string;
  readonly path: string;
  readonly contentType: string | null;
  readonly accept: string | null;
  readonly status: number;
  readonly answerType: string | null;
}

/**
 * A fetch into the server that records each exchange; `answerAs` rewrites the answer's JSON media type, to stand
 * for a server of the other version (the bodies are the same in both).
 */
function recordingFetch(log: Seen[], answerAs?: string): typeof fetch {
  return async (input, init) => {
    const req = new Request(input instanceof URL ? input.href : input, init);
    const res = await tck.fetch(req);
    const answerType = res.headers.get('content-type');
    log.push({
      method: req.method,
      path: new URL(req.url).pathname,
      contentType: req.headers.get('content-type'),
      accept: req.headers.get('accept'),
      status: res.status,
      answerType,
    });
    if (answerAs === undefined || answerType === null || !answerType.startsWith('application/')) return res;
    const headers = new Headers(res.headers);
    headers.set('content-type', answerAs);
    return new Response(res.body, { status: res.status, headers });
  };
}

function jsClient(binding: 'JSONRPC' | 'HTTP+JSON', log: Seen[]) {
  const fetchImpl = recordingFetch(log);
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      preferredTransports: [binding],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
  return factory.createFromUrl(BASE);
}

function jsSend(prefix: string): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: { messageId: uid(prefix), role: 'ROLE_USER', parts: [{ text: 'hello' }] },
  });
}

function isTask(r: Task | Message): r is Task {
  return 'status' in r;
}

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('@a2a-js/sdk 1.3.0 client over %s', (binding) => {
  it('sends, streams, reads and gets a typed error; answers in the type its Accept names', async () => {
    const log: Seen[] = [];
    const client = await jsClient(binding, log);
    expect(client.transport.protocolName).toBe(binding);
    const r = await client.sendMessage(jsSend('tck-complete-task'));
    if (!isTask(r)) throw new Error('expected a task');
    expect(r.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const events = [];
    for await (const ev of client.sendMessageStream(jsSend('tck-stream-001'))) events.push(ev);
    expect(events.length).toBeGreaterThan(1);
    await expect(client.getTask({ tenant: '', id: 'no-such-task', historyLength: 0 })).rejects.toBeInstanceOf(
      JsTaskNotFoundError,
    );
    const calls = log.filter((s) => s.path !== '/.well-known/agent-card.json');
    expect(calls.length).toBeGreaterThanOrEqual(3);
    for (const s of calls) {
      if (s.accept === 'text/event-stream') expect(s.answerType).toBe('text/event-stream');
      else if (binding === 'JSONRPC') expect(s.answerType).toBe(JSON_TYPE);
      // The SDK's REST client names both types, a2a+json first: it gets the v1.0.1 type.
      else expect(s.answerType).toBe(A2A_TYPE);
    }
  });
});

describe('a v1.0.0-style client (plain fetch, application/json)', () => {
  for (const accept of [undefined, '*/*', JSON_TYPE]) {
    it(`REST with Accept ${accept}: application/json answers, errors included`, async () => {
      const headers = { ...V1, 'Content-Type': JSON_TYPE, ...(accept ? { Accept: accept } : {}) };
      const sent = await tck.fetch(
        new Request(`${BASE}/message:send`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ message: userMsg(uid('tck-complete-task')) }),
        }),
      );
      expect(sent.status).toBe(200);
      expect(sent.headers.get('content-type')).toBe(JSON_TYPE);
      const { task } = (await sent.json()) as { task: { id: string } };
      const got = await tck.fetch(new Request(`${BASE}/tasks/${task.id}`, { headers }));
      expect(got.headers.get('content-type')).toBe(JSON_TYPE);
      expect(((await got.json()) as { id: string }).id).toBe(task.id);
      const missing = await tck.fetch(new Request(`${BASE}/tasks/no-such-task`, { headers }));
      expect(missing.status).toBe(404);
      expect(missing.headers.get('content-type')).toBe(JSON_TYPE);
      await missing.body?.cancel();
      const stream = await tck.fetch(
        new Request(`${BASE}/message:stream`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ message: userMsg(uid('tck-stream-001')) }),
        }),
      );
      expect((await readSse(stream)).length).toBeGreaterThan(1);
    });

    it(`JSON-RPC with Accept ${accept}: application/json answers`, async () => {
      const headers = { ...V1, 'Content-Type': JSON_TYPE, ...(accept ? { Accept: accept } : {}) };
      const res = await tck.fetch(
        new Request(`${BASE}/`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'SendMessage',
            params: { message: userMsg(uid('tck-complete-task')) },
          }),
        }),
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(JSON_TYPE);
      expect(((await res.json()) as { result: unknown }).result).toHaveProperty('task');
    });
  }
});

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('our client over %s', (binding) => {
  // undefined: the server as it answers; the others: a server that answers only that type.
  it.each([undefined, JSON_TYPE, A2A_TYPE])('reads answers declared as %s', async (answerAs) => {
    const log: Seen[] = [];
    const client = await A2AClient.fromCardUrl(BASE, {
      fetch: recordingFetch(log, answerAs),
      preferredBindings: [binding],
      retry: false,
    });
    const sent = await client.send({ messageId: uid('tck-complete-task'), parts: [{ text: 'hi' }] });
    if (!('task' in sent)) throw new Error('expected a task');
    expect(sent.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect((await client.getTask(sent.task.id)).id).toBe(sent.task.id);
    await expect(client.getTask('no-such-task')).rejects.toBeInstanceOf(TaskNotFoundError);
    const events = [];
    for await (const ev of client.sendStream({ messageId: uid('tck-stream-001'), parts: [{ text: 'hi' }] }))
      events.push(ev);
    expect(events.length).toBeGreaterThan(1);
    const stream = log.pop()!;
    expect(stream.answerType).toBe('text/event-stream');
    // A stream refused before its first event answers JSON: of either type.
    expect(stream.accept).toBe(
      binding === 'HTTP+JSON'
        ? `text/event-stream, ${A2A_TYPE}, ${JSON_TYPE}`
        : `text/event-stream, ${JSON_TYPE}`,
    );
    const calls = log.filter((s) => s.path !== '/.well-known/agent-card.json');
    expect(calls.length).toBe(3);
    for (const s of calls) {
      if (binding === 'HTTP+JSON') {
        // What a v1.0.1 server expects: the a2a type on a body, both types acceptable in the answer.
        if (s.method === 'POST') expect(s.contentType).toBe(A2A_TYPE);
        expect(s.accept).toBe(`${A2A_TYPE}, ${JSON_TYPE}`);
      } else {
        expect(s.contentType).toBe(JSON_TYPE);
        expect(s.accept).toBe(JSON_TYPE);
      }
    }
  });
});
