/**
 * docs/semantics.md §7 against a peer that ignores keys (`@a2a-js/sdk@1.3.0`): after an ambiguous failure the client
 * never resends a send, keyed or not, and surfaces OutcomeUnknownError; failures that show nothing ran are
 * retried; reads are retried; a cut stream with a known task re-attaches by SubscribeToTask. Ambiguous answers
 * (INTERNAL, UNAVAILABLE, a bare 503) are in `ambiguous-answers-a2a-js.test.ts`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  A2AClient,
  OutcomeUnknownError,
  TransportError,
  fetchAgentCard,
  cardUrlOf,
} from '../../src/client/index.js';
import type { A2AClientOptions } from '../../src/client/index.js';
import type { AgentCard } from '../../src/protocol/agent-card.js';
import type { StreamResponse } from '../../src/protocol/model.js';
import { mintKey } from '../../src/idempotency/index.js';
import { IdempotencyCapacityError } from '../../src/protocol/errors.js';
import { startJsAgent } from './harness/a2a-js-server.js';
import { errorAnswer } from './harness/error-answers.js';
import type { JsAgent } from './harness/a2a-js-server.js';
import { FaultProxy, isCall } from './harness/fault-proxy.js';
import type { SeenRequest } from './harness/fault-proxy.js';

let agent: JsAgent;
let proxy: FaultProxy;
let card: AgentCard;

const fast: A2AClientOptions = {
  retry: { maxAttempts: 4, backoff: { initialMs: 20, maxMs: 100 } },
  attemptTimeoutMs: 2_000,
};

/** A client that reaches the agent through the proxy, with the agent's own card (no key advertisement). */
function viaProxy(binding: 'JSONRPC' | 'HTTP+JSON' = 'JSONRPC', extra: A2AClientOptions = {}): A2AClient {
  const proxied = {
    ...card,
    supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, url: proxy.via(i.url) })),
  };
  return A2AClient.fromCard(proxied, { ...fast, preferredBindings: [binding], ...extra });
}

const sends = isCall('SendMessage');
/** The sends of one test only (by their unique text), so a late request of an earlier test matches nothing. */
const sendOf = (text: string) => (r: SeenRequest) => sends(r) && r.body.includes(text);
const streams = isCall('SendStreamingMessage');

beforeAll(async () => {
  agent = await startJsAgent();
  proxy = await FaultProxy.start(agent.url);
  card = await fetchAgentCard(cardUrlOf(agent.url));
});
afterAll(async () => {
  await proxy.close();
  await agent.close();
});
beforeEach(() => proxy.reset());

async function expectOutcomeUnknown(p: Promise<unknown>): Promise<OutcomeUnknownError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OutcomeUnknownError);
  return err as OutcomeUnknownError;
}

describe.each(['JSONRPC', 'HTTP+JSON'] as const)(
  'ambiguous sends to a peer that ignores keys (%s)',
  (binding) => {
    it('response dropped after the peer ran it: outcome unknown, never resent', async () => {
      const client = viaProxy(binding);
      const before = agent.executions.length;
      proxy.inject({ kind: 'drop-response' }, sendOf(`dropped ${binding}`));
      const err = await expectOutcomeUnknown(client.send(`dropped ${binding}`));
      expect(proxy.count(sendOf(`dropped ${binding}`))).toBe(1);
      expect(agent.executions.length).toBe(before + 1);
      expect(err.peerHonoursKeys).toBe(false);
      expect(err.messageId).toBe(agent.executions.at(-1)?.messageId);
    });

    it('reset mid-request: outcome unknown, never resent (the peer got half a request)', async () => {
      const client = viaProxy(binding);
      const before = agent.executions.length;
      proxy.inject({ kind: 'reset-request' }, sendOf(`reset ${binding}`));
      await expectOutcomeUnknown(client.send(`reset ${binding}`));
      expect(proxy.count(sendOf(`reset ${binding}`))).toBe(1);
      expect(agent.executions.length).toBe(before);
    });

    it('delayed past the attempt timeout: outcome unknown, never resent', async () => {
      const client = viaProxy(binding, { attemptTimeoutMs: 600 });
      proxy.inject({ kind: 'delay', ms: 3_000 }, sendOf(`slow answer ${binding}`));
      const err = await expectOutcomeUnknown(client.send(`slow answer ${binding}`));
      expect(err.cause).toBeInstanceOf(TransportError);
      expect((err.cause as TransportError).code).toBe('TIMEOUT');
      expect(proxy.count(sendOf(`slow answer ${binding}`))).toBe(1);
    });

    it('502 from a gateway after the peer ran it: outcome unknown, never resent', async () => {
      const client = viaProxy(binding);
      const before = agent.executions.length;
      proxy.inject({ kind: 'bad-gateway' }, sendOf(`gateway ${binding}`));
      await expectOutcomeUnknown(client.send(`gateway ${binding}`));
      expect(proxy.count(sendOf(`gateway ${binding}`))).toBe(1);
      expect(agent.executions.length).toBe(before + 1);
    });

    it('a keyed send is not resent either, and the error carries the key without printing it', async () => {
      const client = viaProxy(binding);
      const key = mintKey();
      proxy.inject({ kind: 'drop-response' }, sendOf(`keyed but unsafe ${binding}`));
      const err = await expectOutcomeUnknown(client.send(`keyed but unsafe ${binding}`, { key }));
      expect(proxy.count(sendOf(`keyed but unsafe ${binding}`))).toBe(1);
      expect(err.key).toBe(key);
      expect(err.message).not.toContain(key);
      expect(JSON.stringify(err)).not.toContain(key);
      expect(err.keyHash).toMatch(/^[0-9a-f]{12}$/);
    });

    it('503 with Retry-After and an A2A body that says nothing ran is refused up front: waited for, then sent once', async () => {
      const client = viaProxy(binding);
      const before = agent.executions.length;
      const capacity = errorAnswer(binding, new IdempotencyCapacityError());
      proxy.inject(
        { kind: 'refuse', status: 503, retryAfter: '1', body: capacity.body },
        sendOf(`after a refusal ${binding}`),
      );
      const started = Date.now();
      const res = await client.send(`after a refusal ${binding}`);
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
      expect('task' in res && res.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(proxy.count(sendOf(`after a refusal ${binding}`))).toBe(2);
      expect(agent.executions.length).toBe(before + 1);
    });

    it('429 beyond the retry limit surfaces as refused, having run nothing', async () => {
      const client = viaProxy(binding, { retry: { maxAttempts: 2, backoff: { initialMs: 1, maxMs: 5 } } });
      const before = agent.executions.length;
      proxy.inject({ kind: 'refuse', status: 429, retryAfter: '0' }, sendOf(`refused ${binding}`), 5);
      const err = await client.send(`refused ${binding}`).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(TransportError);
      expect((err as TransportError).kind).toBe('refused');
      expect(proxy.count(sendOf(`refused ${binding}`))).toBe(2);
      expect(agent.executions.length).toBe(before);
    });
  },
);

describe('deadlines and aborts', () => {
  it('gives up at once when Retry-After is past the call deadline', async () => {
    const client = viaProxy('JSONRPC', { timeoutMs: 500 });
    proxy.inject({ kind: 'refuse', status: 429, retryAfter: '5' }, sendOf('no time'));
    const started = Date.now();
    const err = await client.send('no time').catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(400);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).kind).toBe('refused');
  });

  it('a caller abort while a send is in flight: outcome unknown; while a read is in flight: the abort', async () => {
    const client = viaProxy();
    proxy.inject({ kind: 'delay', ms: 1_000 }, sendOf('aborted'));
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const err = await expectOutcomeUnknown(client.send('aborted', { signal: ac.signal }));
    expect((err.cause as Error).name).toBe('AbortError');
    proxy.inject({ kind: 'delay', ms: 1_000 }, isCall('ListTasks'));
    const ac2 = new AbortController();
    setTimeout(() => ac2.abort(), 100);
    const readErr = await client.listTasks({}, { signal: ac2.signal }).catch((e: unknown) => e);
    expect((readErr as Error).name).toBe('AbortError');
  });
});

describe('reads are retried after ambiguous failures', () => {
  it('GetTask with a dropped response is retried and answers', async () => {
    const client = viaProxy();
    const res = await client.send('for a read');
    if (!('task' in res)) throw new Error('expected a task');
    proxy.reset();
    proxy.inject({ kind: 'drop-response' }, isCall('GetTask'));
    const task = await client.getTask(res.task.id);
    expect(task.id).toBe(res.task.id);
    expect(proxy.count(isCall('GetTask'))).toBe(2);
  });

  it('ListTasks over REST behind a 504 is retried', async () => {
    const client = viaProxy('HTTP+JSON');
    proxy.inject(
      { kind: 'bad-gateway', status: 504 },
      (r) => r.method === 'GET' && r.path.includes('/tasks'),
    );
    const list = await client.listTasks();
    expect(Array.isArray(list.tasks)).toBe(true);
    expect(proxy.count((r) => r.method === 'GET' && r.path.includes('/tasks'))).toBe(2);
  });
});

describe('not sent: connection refused', () => {
  it('moves to the next interface, since nothing was sent', async () => {
    const dead = await FaultProxy.start('http://127.0.0.1:9');
    const deadUrl = dead.url;
    await dead.close();
    const withDeadFirst: AgentCard = {
      ...card,
      supportedInterfaces: [
        { url: `${deadUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        ...card.supportedInterfaces,
      ],
    };
    const client = A2AClient.fromCard(withDeadFirst, fast);
    const before = agent.executions.length;
    const res = await client.send('failover');
    expect('task' in res).toBe(true);
    expect(client.endpoint.url).toBe(agent.jsonRpcUrl);
    expect(agent.executions.length).toBe(before + 1);
  });

  it('ends with a not-sent TransportError when nothing answers', async () => {
    const dead = await FaultProxy.start('http://127.0.0.1:9');
    const deadUrl = dead.url;
    await dead.close();
    const client = A2AClient.fromEndpoint(deadUrl, fast);
    const err = await client.send('nobody home').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).kind).toBe('not-sent');
    expect((err as TransportError).code).toBe('CONNECTION_REFUSED');
  });
});

describe('streams cut mid-way (the peer ignores keys)', () => {
  async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
    const out: StreamResponse[] = [];
    for await (const ev of stream) out.push(ev);
    return out;
  }

  it.each(['JSONRPC', 'HTTP+JSON'] as const)(
    'a cut after the task is known re-attaches by SubscribeToTask, each update once (%s)',
    async (binding) => {
      const client = viaProxy(binding);
      const before = agent.executions.length;
      proxy.inject({ kind: 'cut-stream', afterEvents: 3 }, streams);
      const events = await collect(client.sendStream('slow:6'));
      expect(agent.executions.length).toBe(before + 1);
      expect(proxy.count(streams)).toBe(1);
      expect(proxy.count(isCall('SubscribeToTask'))).toBeGreaterThanOrEqual(1);
      const chunks = events.flatMap((e) => ('artifactUpdate' in e ? e.artifactUpdate.artifact.parts : []));
      expect(chunks).toEqual([0, 1, 2, 3, 4, 5].map((i) => ({ text: `chunk${i}` })));
      const states = events.flatMap((e) => ('statusUpdate' in e ? [e.statusUpdate.status.state] : []));
      expect(states.at(-1)).toBe('TASK_STATE_COMPLETED');
      expect(states.filter((s) => s === 'TASK_STATE_COMPLETED')).toHaveLength(1);
    },
  );

  it('a cut before the first event of an unkeyed stream: outcome unknown, never resent', async () => {
    const client = viaProxy();
    proxy.inject({ kind: 'cut-stream', afterEvents: 0 }, streams);
    await expectOutcomeUnknown(collect(client.sendStream('slow:2')));
    expect(proxy.count(streams)).toBe(1);
  });
});
