/**
 * How a send was admitted reaches the caller (ADR 0086): an a2a-once server answers SendMessage and
 * SendStreamingMessage with `A2A-Once-Admission` (created, continued, replayed), on both bindings, and
 * `SendOptions.onAdmission` hears it. A peer that does not say (an `@a2a-js/sdk` server) is never reported as
 * having replayed or created anything, and a listener that throws does not turn a delivered answer into a failure.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient } from '../../../src/client/index.js';
import type { AdmissionOutcome } from '../../../src/client/index.js';
import type { ClientLogger } from '../../../src/client/sends/client-logger.js';
import { HEADER_ADMISSION } from '../../../src/protocol/constants.js';
import { createA2AServer } from '../../../src/server/create-server.js';
import type { A2AServer } from '../../../src/server/create-server.js';
import { serveNode } from '../../../src/server/node/index.js';
import type { NodeServerHandle } from '../../../src/server/node/index.js';
import { MemoryTaskStore } from '../../../src/store/memory/index.js';
import { startJsAgent } from '../harness/a2a-js-server.js';
import type { JsAgent } from '../harness/a2a-js-server.js';
import { closeNode } from '../../helpers/close-node.js';

let server: A2AServer;
let http: NodeServerHandle;
let runs = 0;

beforeAll(async () => {
  server = createA2AServer({
    card: { name: 'asker', description: 'asks once, then answers', capabilities: { streaming: true } },
    store: new MemoryTaskStore(),
    agent: {
      async execute(ctx) {
        runs++;
        if (ctx.userText === 'ask' && !ctx.isContinuation) return ctx.requireInput('which one?');
        await ctx.artifact({ name: 'echo', parts: [{ text: ctx.userText }] });
        await ctx.complete();
      },
    },
  });
  http = await serveNode(server.fetch, { host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await closeNode(http);
  await server.close();
});

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('an a2a-once server over %s', (binding) => {
  it('says created, then replayed for the same keyed send, and the agent ran once', async () => {
    const client = await A2AClient.fromCardUrl(http.url, { preferredBindings: [binding] });
    const heard: AdmissionOutcome[] = [];
    const onAdmission = (a: AdmissionOutcome) => heard.push(a);
    const key = `admission-${binding.replace('+', '-')}-0001`;
    const before = runs;
    const first = await client.send('hello', { key, onAdmission });
    const again = await client.send('hello', { key, onAdmission });
    expect(heard).toEqual(['created', 'replayed']);
    expect('task' in again && 'task' in first && again.task.id === first.task.id).toBe(true);
    expect(runs - before).toBe(1);
  });

  it('says continued for the next turn of a task waiting for input', async () => {
    const client = await A2AClient.fromCardUrl(http.url, { preferredBindings: [binding] });
    const heard: AdmissionOutcome[] = [];
    const first = await client.send('ask', { onAdmission: (a) => heard.push(a) });
    if (!('task' in first)) throw new Error('expected a task');
    await client.send(
      { parts: [{ text: 'this one' }], taskId: first.task.id },
      { onAdmission: (a) => heard.push(a) },
    );
    expect(heard).toEqual(['created', 'continued']);
  });

  it('says so on a streaming send too', async () => {
    const client = await A2AClient.fromCardUrl(http.url, { preferredBindings: [binding] });
    const heard: AdmissionOutcome[] = [];
    const key = `admission-stream-${binding.replace('+', '-')}`;
    for (let i = 0; i < 2; i++)
      for await (const _ of client.sendStream('streamed', { key, onAdmission: (a) => heard.push(a) }));
    expect(heard).toEqual(['created', 'replayed']);
  });

  it('a listener that throws is logged and the send still answers', async () => {
    const lines: string[] = [];
    const logger: ClientLogger = { warn: (m) => lines.push(m), error: (m) => lines.push(m) };
    const client = await A2AClient.fromCardUrl(http.url, { preferredBindings: [binding], logger });
    const res = await client.send('thrower', {
      onAdmission: () => {
        throw new Error('listener bug');
      },
    });
    expect('task' in res && res.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(lines).toEqual(['onAdmission threw; the send goes on']);
  });
});

it('the header is on the wire, and not on reads', async () => {
  const body = (method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
  const post = (payload: string) =>
    fetch(`${http.url}/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: payload,
    });
  const message = { messageId: 'wire-admission-1', role: 'ROLE_USER', parts: [{ text: 'wire' }] };
  const sent = await post(body('SendMessage', { message }));
  expect(sent.headers.get(HEADER_ADMISSION)).toBe('created');
  const { result } = (await sent.json()) as { result: { task: { id: string } } };
  const read = await post(body('GetTask', { id: result.task.id }));
  expect(read.status).toBe(200);
  expect(read.headers.get(HEADER_ADMISSION)).toBeNull();
});

describe('a peer that does not say', () => {
  let js: JsAgent;
  beforeAll(async () => {
    js = await startJsAgent();
  });
  afterAll(async () => {
    await js.close();
  });

  it('is never reported as having admitted the send any way', async () => {
    const client = await A2AClient.fromCardUrl(js.url);
    const heard: AdmissionOutcome[] = [];
    await client.send('hello', { key: 'a2a-js-admission-01', onAdmission: (a) => heard.push(a) });
    expect(heard).toEqual([]);
  });
});
