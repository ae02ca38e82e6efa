/**
 * An INTERNAL or UNAVAILABLE answer to a keyed send, or a bare 503, is ambiguous (docs/semantics.md §7, ADR 0020): the
 * server may have admitted and run the send before failing. Against a peer that honours keys (the a2a-once
 * server, spawned from dist) the client resends with the same key and gets the replay; when it cannot, the
 * send ends in OutcomeUnknownError and its durable intent stays pending, so recovery replays it, never runs it
 * twice. The capacity refusal, which says nothing ran, still settles the intent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  A2AClient,
  MemoryIntentStore,
  OutcomeUnknownError,
  SqliteIntentStore,
  cardUrlOf,
  fetchAgentCard,
} from '../../src/client/index.js';
import type { A2AClientOptions } from '../../src/client/index.js';
import type { AgentCard } from '../../src/protocol/agent-card.js';
import {
  A2AError,
  IdempotencyCapacityError,
  InternalError,
  ServerBusyError,
} from '../../src/protocol/errors.js';
import type { Message } from '../../src/protocol/model.js';
import { mintKey } from '../../src/idempotency/index.js';
import { SERVER_BUILT, startOnceServer } from './harness/a2a-once-server.js';
import type { OnceServer } from './harness/a2a-once-server.js';
import { errorAnswer } from './harness/error-answers.js';
import { FaultProxy, isCall } from './harness/fault-proxy.js';
import type { Fault, SeenRequest } from './harness/fault-proxy.js';

type Binding = 'JSONRPC' | 'HTTP+JSON';

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-ambiguous-'));
let server: OnceServer;
let proxy: FaultProxy;
let card: AgentCard;

function viaProxy(binding: Binding, extra: A2AClientOptions = {}): A2AClient {
  const proxied = {
    ...card,
    supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, url: proxy.via(i.url) })),
  };
  return A2AClient.fromCard(proxied, {
    retry: { maxAttempts: 5, backoff: { initialMs: 20, maxMs: 100 } },
    attemptTimeoutMs: 5_000,
    preferredBindings: [binding],
    cardUrl: cardUrlOf(proxy.url),
    ...extra,
  });
}

function sendsOf(messageId: string): (r: SeenRequest) => boolean {
  const send = isCall('SendMessage');
  return (r) => send(r) && r.body.includes(messageId);
}

function freshMessage(text: string): Message {
  return { messageId: `amb-${mintKey()}`, role: 'ROLE_USER', parts: [{ text }] };
}

/** An error of a kind this client does not know, with gRPC status UNAVAILABLE (a gateway's or another SDK's). */
const unknownUnavailable = new A2AError({
  name: 'A2AError',
  code: -32603,
  httpStatus: 503,
  grpcStatus: 'UNAVAILABLE',
  reason: 'BACKEND_UNAVAILABLE',
  domain: 'gateway.example',
  defaultMessage: 'the backend went away',
});

/** Answers given after the peer ran the send (the proxy forwards, lets it finish, then answers this instead). */
const answers: [string, (b: Binding) => Fault][] = [
  [
    'INTERNAL (-32603 / HTTP 500 with an A2A body)',
    (b) => ({ kind: 'replace', ...errorAnswer(b, new InternalError()) }),
  ],
  [
    'UNAVAILABLE (503, the server-busy error)',
    (b) => ({ kind: 'replace', ...errorAnswer(b, new ServerBusyError()) }),
  ],
  [
    'UNAVAILABLE of a kind the client does not know',
    (b) => ({ kind: 'replace', ...errorAnswer(b, unknownUnavailable) }),
  ],
  [
    'a bare 503 (a proxy that reset an upstream which had the request)',
    () => ({ kind: 'replace', status: 503 }),
  ],
];

describe.skipIf(!SERVER_BUILT)('ambiguous answers to a keyed send (a2a-once server, honours keys)', () => {
  beforeAll(async () => {
    server = await startOnceServer(dir, 'slow', 50);
    proxy = await FaultProxy.start(server.url);
    card = await fetchAgentCard(cardUrlOf(server.url));
  });
  afterAll(async () => {
    await proxy?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => proxy.reset());

  describe.each(['JSONRPC', 'HTTP+JSON'] as const)('%s', (binding) => {
    it.each(answers)(
      '%s after the peer ran it: resent with the same key, one execution, a definite answer',
      async (_name, fault) => {
        const client = viaProxy(binding);
        const message = freshMessage(`answered ambiguously ${binding}`);
        proxy.inject(fault(binding), sendsOf(message.messageId));
        const res = await client.send(message);
        expect('task' in res && res.task.status.state).toBe('TASK_STATE_COMPLETED');
        expect(proxy.count(sendsOf(message.messageId))).toBe(2);
        expect(server.executionsOf(message.messageId)).toBe(1);
      },
    );

    it.each(answers)(
      '%s with no retry left: outcome unknown, the intent stays pending, and recovery replays it once',
      async (_name, fault) => {
        const file = join(dir, `intents-${mintKey()}.db`);
        const client = viaProxy(binding, {
          intentStore: new SqliteIntentStore(new Database(file)),
          retry: false,
        });
        const message = freshMessage(`pending after an ambiguous answer ${binding}`);
        proxy.inject(fault(binding), sendsOf(message.messageId));
        const err = await client.send(message).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(OutcomeUnknownError);
        expect((err as OutcomeUnknownError).peerHonoursKeys).toBe(true);
        expect(server.executionsOf(message.messageId)).toBe(1);

        const restarted = viaProxy(binding, { intentStore: new SqliteIntentStore(new Database(file)) });
        const report = await restarted.recoverPending();
        expect(report.map((r) => [r.messageId, r.status])).toEqual([[message.messageId, 'resent']]);
        const res = report[0]!.response!;
        expect('task' in res && res.task.status.state).toBe('TASK_STATE_COMPLETED');
        expect(server.executionsOf(message.messageId)).toBe(1);
        expect(await restarted.recoverPending()).toEqual([]);
      },
    );

    it('the capacity refusal (503 + Retry-After, nothing ran) is still refused up front: the intent is settled', async () => {
      const store = new MemoryIntentStore();
      const client = viaProxy(binding, { intentStore: store, retry: false });
      const key = mintKey();
      const message = freshMessage(`refused for capacity ${binding}`);
      proxy.inject(
        { kind: 'refuse', retryAfter: '1', ...errorAnswer(binding, new IdempotencyCapacityError()) },
        sendsOf(message.messageId),
      );
      const err = await client.send(message, { key }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(IdempotencyCapacityError);
      expect((err as A2AError).retryAfterSeconds).toBe(1);
      expect(store.outcomeOf({ target: cardUrlOf(proxy.url), key })).toEqual({ status: 'not-sent' });
      expect(await store.pending()).toEqual([]);
      expect(server.executionsOf(message.messageId)).toBe(0);
    });
  });
});
