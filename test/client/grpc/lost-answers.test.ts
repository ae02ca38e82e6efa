/**
 * The retry classification over gRPC (docs/semantics.md §7, ADR 0111, ADR 0112), on real sockets: a loopback TCP
 * proxy (test/helpers/tcp-proxy.ts) lets the request through and cuts the connection while the agent runs, before
 * the answer. A keyed send to a peer that honours keys is resent and the agent ran once (one task); an unkeyed one
 * ends in OutcomeUnknownError, never resent. A server that is down before the call sent nothing: the call moves
 * to the card's next interface, or is retried until the server is up. A stream cut mid-way re-attaches (by
 * SubscribeToTask, or by a keyed resend) and shows every update once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient, OutcomeUnknownError, TransportError } from '../../../src/client/index.js';
import type { RetryEvent } from '../../../src/client/index.js';
import { grpcTransport } from '../../../src/client/grpc/index.js';
import type { AgentCard } from '../../../src/protocol/agent-card.js';
import type { StreamResponse } from '../../../src/protocol/model.js';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.js';
import { checkPortFree } from '../../server/grpc/free-port.js';
import { startOnceGrpcAgent, type OnceGrpcAgent } from './once-grpc-agent.js';

const grpc = grpcTransport({ insecure: true });
let agent: OnceGrpcAgent;
let proxy: TcpProxy;
let card: AgentCard;

beforeAll(async () => {
  agent = await startOnceGrpcAgent({
    chunkDelayMs: 20,
    // The request has arrived and the agent runs: the connection goes before the answer does.
    onRun: (text) => {
      if (text.startsWith('cut ')) proxy.cut();
    },
  });
  const [host, port] = agent.grpcAddress.split(':');
  proxy = await startTcpProxy({ host: host!, port: Number(port) });
  card = await agent.card();
});
afterAll(async () => {
  await proxy.close();
  await agent.close();
});

/** The card with its GRPC interface through the proxy (or at `url`), first unless `order` says otherwise. */
function cardWithGrpcAt(url: string, bindings: readonly string[] = ['GRPC']): AgentCard {
  return {
    ...card,
    supportedInterfaces: card.supportedInterfaces
      .filter((i) => bindings.includes(i.protocolBinding))
      .map((i) => (i.protocolBinding === 'GRPC' ? { ...i, url } : i)),
  };
}

function clientFor(c: AgentCard, events: RetryEvent[], preferred = ['GRPC']): A2AClient {
  return A2AClient.fromCard(c, {
    transports: [grpc],
    preferredBindings: preferred,
    attemptTimeoutMs: 5_000,
    retry: { maxAttempts: 6, backoff: { initialMs: 20, maxMs: 200 }, onRetry: (e) => events.push(e) },
  });
}

const viaProxy = () => `127.0.0.1:${proxy.port}`;

describe('an answer lost after the request was sent', () => {
  it('a keyed send is resent with its key: one task, the agent ran once', async () => {
    const events: RetryEvent[] = [];
    const client = clientFor(cardWithGrpcAt(viaProxy()), events);
    const before = agent.runs.length;
    const res = await client.send('cut keyed');
    expect('task' in res && res.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(agent.runs.length - before).toBe(1);
    expect(events.length).toBeGreaterThanOrEqual(1);
    const first = events[0]!.error;
    expect(first).toBeInstanceOf(TransportError);
    expect((first as TransportError).kind).toBe('ambiguous');
    const tasks = await client.listTasks({ pageSize: 100 });
    const id = 'task' in res ? res.task.id : '';
    expect(tasks.tasks.filter((t) => t.id === id)).toHaveLength(1);
  });

  it('an unkeyed send reports outcome unknown and is not resent', async () => {
    const events: RetryEvent[] = [];
    const client = clientFor(cardWithGrpcAt(viaProxy()), events);
    const before = agent.runs.length;
    const err = await client.send('cut unkeyed', { key: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect((err as OutcomeUnknownError).cause).toBeInstanceOf(TransportError);
    expect(((err as OutcomeUnknownError).cause as TransportError).kind).toBe('ambiguous');
    expect(events).toEqual([]);
    expect(agent.runs.length - before).toBe(1);
  });
});

describe('a server that is down before the call: nothing was sent', () => {
  it('moves to the next interface of the card (an unkeyed send, safely)', async () => {
    const events: RetryEvent[] = [];
    const down = `127.0.0.1:${await checkPortFree()}`;
    const client = clientFor(cardWithGrpcAt(down, ['GRPC', 'JSONRPC']), events, ['GRPC', 'JSONRPC']);
    expect(client.endpoint.binding).toBe('GRPC');
    const before = agent.runs.length;
    const res = await client.send('after failover', { key: false });
    expect('task' in res && res.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(agent.runs.length - before).toBe(1);
    expect(events).toHaveLength(1);
    expect((events[0]!.error as TransportError).kind).toBe('not-sent');
    expect(client.endpoint.binding).toBe('JSONRPC');
  });

  it('a GRPC-only card: retried as not sent, then the error itself (no outcome unknown)', async () => {
    const events: RetryEvent[] = [];
    const down = `127.0.0.1:${await checkPortFree()}`;
    const client = A2AClient.fromCard(cardWithGrpcAt(down), {
      transports: [grpc],
      retry: { maxAttempts: 3, backoff: { initialMs: 1, maxMs: 5 }, onRetry: (e) => events.push(e) },
    });
    const err = await client.send('never sent', { key: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).kind).toBe('not-sent');
    expect(events).toHaveLength(2);
  });

  it('a connection accepted but never answered (a stalled handshake): not sent once the attempt times out', async () => {
    const [host, port] = agent.grpcAddress.split(':');
    const silent = await startTcpProxy({ host: host!, port: Number(port) });
    silent.stall({ newConnections: true });
    try {
      const events: RetryEvent[] = [];
      const client = A2AClient.fromCard(cardWithGrpcAt(`127.0.0.1:${silent.port}`, ['GRPC', 'JSONRPC']), {
        transports: [grpc],
        preferredBindings: ['GRPC', 'JSONRPC'],
        attemptTimeoutMs: 1_000,
        retry: { maxAttempts: 3, backoff: { initialMs: 1, maxMs: 5 }, onRetry: (e) => events.push(e) },
      });
      const before = agent.runs.length;
      const res = await client.send('after a stalled connect', { key: false });
      expect('task' in res && res.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(events).toHaveLength(1);
      expect((events[0]!.error as TransportError).code).toBe('CONNECT_TIMEOUT');
      expect((events[0]!.error as TransportError).kind).toBe('not-sent');
      expect(agent.runs.length - before).toBe(1);
    } finally {
      await silent.close();
    }
  });

  it('retried until the server is up: the send then runs once', async () => {
    const events: RetryEvent[] = [];
    const port = await checkPortFree();
    let late: OnceGrpcAgent | undefined;
    let starting: Promise<void> | undefined;
    const client = A2AClient.fromEndpoint(`127.0.0.1:${port}`, {
      binding: 'GRPC',
      transports: [grpc],
      retry: {
        maxAttempts: 30,
        backoff: { initialMs: 50, maxMs: 100 },
        onRetry: (e) => {
          events.push(e);
          starting ??= startOnceGrpcAgent({ grpcPort: port }).then((a) => {
            late = a;
          });
        },
      },
    });
    try {
      const res = await client.send('late server', { key: false });
      expect('task' in res && res.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(events.length).toBeGreaterThanOrEqual(1);
      expect(events.every((e) => (e.error as TransportError).kind === 'not-sent')).toBe(true);
      expect(late?.runs).toEqual(['late server']);
    } finally {
      await starting;
      await late?.close();
    }
  });
});

describe('a stream that opened', () => {
  it('lives past the attempt timeout (which bounds its opening only), until its proper end', async () => {
    const grpcOnly = cardWithGrpcAt(agent.grpcAddress);
    // The timeout leaves the opening room on a loaded machine (a 100 ms one timed a CI run's opening out), and
    // the stream runs 60 chunks 20 ms apart: well past it.
    const client = A2AClient.fromCard(grpcOnly, { transports: [grpc], attemptTimeoutMs: 600, retry: false });
    const started = Date.now();
    const events: StreamResponse[] = [];
    for await (const ev of client.sendStream('chunks:60', { key: false })) events.push(ev);
    expect(Date.now() - started).toBeGreaterThan(600);
    const last = events.at(-1)!;
    expect('statusUpdate' in last && last.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });
});

describe('a stream cut mid-way', () => {
  async function cutAfter(
    client: A2AClient,
    stream: AsyncIterable<StreamResponse>,
    n: number,
  ): Promise<StreamResponse[]> {
    const out: StreamResponse[] = [];
    for await (const ev of stream) {
      out.push(ev);
      if (out.length === n) proxy.cut();
    }
    expect(client).toBeDefined();
    return out;
  }

  it('an unkeyed stream re-attaches with SubscribeToTask and shows every chunk once', async () => {
    const events: RetryEvent[] = [];
    const client = clientFor(cardWithGrpcAt(viaProxy()), events);
    const before = agent.runs.length;
    const seen = await cutAfter(client, client.sendStream('chunks:8', { key: false }), 3);
    const chunks = seen.flatMap((e) => ('artifactUpdate' in e ? e.artifactUpdate.artifact.parts : []));
    expect(chunks).toEqual(Array.from({ length: 8 }, (_, i) => ({ text: `chunk${i}` })));
    const last = seen.at(-1)!;
    expect('statusUpdate' in last && last.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    expect(events.length).toBeGreaterThanOrEqual(1);
    expect(agent.runs.length - before).toBe(1);
  });

  it('a keyed stream re-attaches by resending its key: the agent ran once', async () => {
    const events: RetryEvent[] = [];
    const client = clientFor(cardWithGrpcAt(viaProxy()), events);
    const before = agent.runs.length;
    const seen = await cutAfter(client, client.sendStream('chunks:6'), 2);
    const chunks = seen.flatMap((e) => ('artifactUpdate' in e ? e.artifactUpdate.artifact.parts : []));
    expect(chunks.map((p) => ('text' in p ? p.text : ''))).toEqual(
      Array.from({ length: 6 }, (_, i) => `chunk${i}`),
    );
    expect(events.length).toBeGreaterThanOrEqual(1);
    expect(agent.runs.length - before).toBe(1);
  });
});
