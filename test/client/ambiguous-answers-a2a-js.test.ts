/**
 * An INTERNAL or UNAVAILABLE answer, or a bare 503, given after the peer ran a send, is ambiguous (docs/semantics.md §7,
 * ADR 0020). Against a peer that ignores keys (`@a2a-js/sdk@1.3.0`) the client never resends such a send: it
 * ends in OutcomeUnknownError. Only an answer that says nothing ran (a 429, or the capacity refusal: see
 * `faults-a2a-js.test.ts`) is waited for and retried.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  A2AClient,
  OutcomeUnknownError,
  TransportError,
  cardUrlOf,
  fetchAgentCard,
} from '../../src/client/index.js';
import type { A2AClientOptions } from '../../src/client/index.js';
import type { AgentCard } from '../../src/protocol/agent-card.js';
import type { StreamResponse } from '../../src/protocol/model.js';
import { InternalError, ServerBusyError } from '../../src/protocol/errors.js';
import { startJsAgent } from './harness/a2a-js-server.js';
import type { JsAgent } from './harness/a2a-js-server.js';
import { errorAnswer } from './harness/error-answers.js';
import { FaultProxy, isCall } from './harness/fault-proxy.js';
import type { Fault, SeenRequest } from './harness/fault-proxy.js';

type Binding = 'JSONRPC' | 'HTTP+JSON';

let agent: JsAgent;
let proxy: FaultProxy;
let card: AgentCard;

function viaProxy(binding: Binding, extra: A2AClientOptions = {}): A2AClient {
  const proxied = {
    ...card,
    supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, url: proxy.via(i.url) })),
  };
  return A2AClient.fromCard(proxied, {
    retry: { maxAttempts: 4, backoff: { initialMs: 20, maxMs: 100 } },
    attemptTimeoutMs: 2_000,
    preferredBindings: [binding],
    ...extra,
  });
}

const sendOf = (text: string) => (r: SeenRequest) => isCall('SendMessage')(r) && r.body.includes(text);

const answers: [string, (b: Binding) => Fault][] = [
  [
    'INTERNAL (-32603 / HTTP 500 with an A2A body)',
    (b) => ({ kind: 'replace', ...errorAnswer(b, new InternalError()) }),
  ],
  [
    'UNAVAILABLE (503, the server-busy error)',
    (b) => ({ kind: 'replace', ...errorAnswer(b, new ServerBusyError()) }),
  ],
  ['a bare 503', () => ({ kind: 'replace', status: 503, retryAfter: '0' })],
];

beforeAll(async () => {
  agent = await startJsAgent();
  proxy = await FaultProxy.start(agent.url);
  card = await fetchAgentCard(cardUrlOf(agent.url));
});
afterAll(async () => {
  await proxy?.close();
  await agent?.close();
});
beforeEach(() => proxy.reset());

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('a send to a peer that ignores keys (%s)', (binding) => {
  it.each(answers)('%s after the peer ran it: outcome unknown, never resent', async (name, fault) => {
    const client = viaProxy(binding);
    const text = `${name} ${binding}`;
    const before = agent.executions.length;
    proxy.inject(fault(binding), sendOf(text));
    const err = await client.send(text).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect((err as OutcomeUnknownError).peerHonoursKeys).toBe(false);
    expect(proxy.count(sendOf(text))).toBe(1);
    expect(agent.executions.length).toBe(before + 1);
  });

  it('a bare 429 is refused up front: retried, and run once', async () => {
    const client = viaProxy(binding);
    const text = `after a 429 ${binding}`;
    const before = agent.executions.length;
    proxy.inject({ kind: 'refuse', status: 429, retryAfter: '0' }, sendOf(text));
    const res = await client.send(text);
    expect('task' in res && res.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(proxy.count(sendOf(text))).toBe(2);
    expect(agent.executions.length).toBe(before + 1);
  });

  it('a read answered with a bare 503 is retried (ambiguous is safe to repeat for a read)', async () => {
    const client = viaProxy(binding);
    const res = await client.send(`for a read ${binding}`);
    if (!('task' in res)) throw new Error('expected a task');
    proxy.reset();
    const gets = isCall('GetTask');
    proxy.inject({ kind: 'replace', status: 503, retryAfter: '0' }, gets);
    const task = await client.getTask(res.task.id);
    expect(task.id).toBe(res.task.id);
    expect(proxy.count(gets)).toBe(2);
  });
});

it.each(['JSONRPC', 'HTTP+JSON'] as const)(
  'an INTERNAL error in the middle of a stream is a cut: re-attached by SubscribeToTask, each update once (%s)',
  async (binding) => {
    const client = viaProxy(binding);
    const before = agent.executions.length;
    const streams = isCall('SendStreamingMessage');
    proxy.inject(
      { kind: 'stream-error', afterEvents: 3, event: errorAnswer(binding, new InternalError()).body },
      streams,
    );
    const events: StreamResponse[] = [];
    for await (const ev of client.sendStream('slow:4')) events.push(ev);
    expect(agent.executions.length).toBe(before + 1);
    expect(proxy.count(streams)).toBe(1);
    expect(proxy.count(isCall('SubscribeToTask'))).toBeGreaterThanOrEqual(1);
    const chunks = events.flatMap((e) => ('artifactUpdate' in e ? e.artifactUpdate.artifact.parts : []));
    expect(chunks).toEqual([0, 1, 2, 3].map((i) => ({ text: `chunk${i}` })));
    const states = events.flatMap((e) => ('statusUpdate' in e ? [e.statusUpdate.status.state] : []));
    expect(states.filter((s) => s === 'TASK_STATE_COMPLETED')).toHaveLength(1);
  },
);

it('an INTERNAL answer to a JSON-RPC send over HTTP 200 (as @a2a-js/sdk answers errors) is just as ambiguous', async () => {
  const client = viaProxy('JSONRPC');
  const text = 'internal over 200';
  const internal = errorAnswer('JSONRPC', new InternalError());
  proxy.inject({ kind: 'replace', status: 200, body: internal.body }, sendOf(text));
  const err = await client.send(text).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(OutcomeUnknownError);
  expect((err as OutcomeUnknownError).cause).toBeInstanceOf(InternalError);
  expect(proxy.count(sendOf(text))).toBe(1);
});

it('a bare 503 on a call with a single attempt surfaces as an ambiguous UNAVAILABLE', async () => {
  const client = viaProxy('HTTP+JSON', { retry: false });
  proxy.inject({ kind: 'replace', status: 503 }, (r) => r.method === 'GET' && r.path.includes('/tasks'));
  const err = await client.listTasks().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(TransportError);
  expect((err as TransportError).kind).toBe('ambiguous');
  expect((err as TransportError).code).toBe('UNAVAILABLE');
});
