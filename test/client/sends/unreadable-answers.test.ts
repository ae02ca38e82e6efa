/**
 * A 200 answer to a send that this client cannot read is ambiguous, not a refusal (ADR 0068): the peer answered,
 * so it may have run the send. Keyed or not, the caller gets `OutcomeUnknownError` saying so, with the reading
 * error as its cause, and a keyed send's intent stays pending; the client does not resend an answer it received.
 * Streams alike; a subscription (a read, nothing ran) keeps the reading error. Against a real HTTP server that
 * answers 200 with such bodies.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  A2AClient,
  MemoryIntentStore,
  OutcomeUnknownError,
  TransportError,
} from '../../../src/client/index.js';
import { InvalidAgentResponseError } from '../../../src/protocol/errors.js';
import { mintKey } from '../../../src/idempotency/index.js';

type Binding = 'JSONRPC' | 'HTTP+JSON';

const task = (state: string, extra: Record<string, unknown> = {}) => ({
  id: 'task-1',
  contextId: 'ctx-1',
  status: { state },
  ...extra,
});

/** What a peer answers, as the `result` of a JSON-RPC response or the body of a REST one. */
const bodies: [string, (b: Binding) => string, 'unreadable' | 'cut'][] = [
  [
    'a task state this client does not know',
    (b) => wrap(b, { task: task('TASK_STATE_TELEPORTED') }),
    'unreadable',
  ],
  [
    'a field of a shape this client does not recognise',
    (b) => wrap(b, { task: task('TASK_STATE_COMPLETED', { artifacts: 'all of them' }) }),
    'unreadable',
  ],
  [
    'a body cut to invalid JSON',
    (b) => {
      const whole = wrap(b, { task: task('TASK_STATE_COMPLETED') });
      return whole.slice(0, Math.floor(whole.length / 2));
    },
    'cut',
  ],
];

function wrap(b: Binding, result: unknown): string {
  return JSON.stringify(b === 'JSONRPC' ? { jsonrpc: '2.0', id: 1, result } : result);
}

/** A peer that answers every request with 200 and the body it was given. */
class CannedPeer {
  body = '';
  contentType = 'application/json';
  requests = 0;
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<CannedPeer> {
    const holder: { peer?: CannedPeer } = {};
    const server = createServer((req, res) => {
      const peer = holder.peer!;
      req.resume();
      req.on('end', () => {
        peer.requests++;
        res.writeHead(200, { 'content-type': peer.contentType });
        res.end(peer.body);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    holder.peer = new CannedPeer(server, `http://127.0.0.1:${port}`);
    return holder.peer;
  }

  close(): Promise<void> {
    return new Promise((r) => {
      this.server.closeAllConnections();
      this.server.close(() => r());
    });
  }
}

describe('a 200 answer the client cannot read', () => {
  let peer: CannedPeer;
  beforeAll(async () => {
    peer = await CannedPeer.start();
  });
  afterAll(async () => {
    await peer.close();
  });
  beforeEach(() => {
    peer.requests = 0;
    peer.contentType = 'application/json';
  });

  function client(binding: Binding, store?: MemoryIntentStore, retry = false): A2AClient {
    return A2AClient.fromEndpoint(binding === 'JSONRPC' ? `${peer.url}/rpc` : peer.url, {
      binding,
      peerHonoursKeys: true,
      ...(store ? { intentStore: store } : {}),
      ...(retry ? { retry: { maxAttempts: 3, backoff: { initialMs: 1, maxMs: 5 } } } : { retry: false }),
      logger: { warn() {}, error() {} },
    });
  }

  describe.each(['JSONRPC', 'HTTP+JSON'] as const)('%s', (binding) => {
    it.each(bodies)(
      '%s, to a keyed send: outcome unknown, the intent stays pending',
      async (_n, body, how) => {
        peer.body = body(binding);
        const store = new MemoryIntentStore();
        const key = mintKey();
        const err = await client(binding, store)
          .send('read me', { key })
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(OutcomeUnknownError);
        expect((err as Error).message).toMatch(/may have run/);
        const cause = (err as Error).cause;
        if (how === 'unreadable') {
          expect(cause).toBeInstanceOf(InvalidAgentResponseError);
          expect((err as OutcomeUnknownError).answerUnreadable).toBe(true);
        } else {
          expect(cause).toBeInstanceOf(TransportError);
        }
        expect((await store.pending()).map((i) => i.key)).toEqual([key]);
      },
    );

    it.each(bodies)('%s, to an unkeyed send: outcome unknown as well', async (_n, body) => {
      peer.body = body(binding);
      const store = new MemoryIntentStore();
      const err = await client(binding, store)
        .send('read me unkeyed', { key: false })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OutcomeUnknownError);
      expect((err as OutcomeUnknownError).key).toBeUndefined();
      expect((err as Error).message).toMatch(/may have run/);
      expect(await store.pending()).toEqual([]);
    });

    it('an answer it cannot read is not resent, even when retries are left', async () => {
      peer.body = bodies[0]![1](binding);
      const err = await client(binding, new MemoryIntentStore(), true)
        .send('answered once', { key: mintKey() })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OutcomeUnknownError);
      expect(peer.requests).toBe(1);
    });
  });

  it('a JSON-RPC 200 that is JSON but not a JSON-RPC response: outcome unknown, the intent stays pending', async () => {
    peer.body = JSON.stringify({ hello: 'a proxy answered this' });
    const store = new MemoryIntentStore();
    const key = mintKey();
    const err = await client('JSONRPC', store)
      .send('not an envelope', { key })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect((await store.pending()).map((i) => i.key)).toEqual([key]);
  });

  describe('streams', () => {
    const event = (result: unknown) => `data: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result })}\n\n`;

    it('a first event it cannot read: outcome unknown, the intent stays pending', async () => {
      peer.contentType = 'text/event-stream';
      peer.body = event({ task: task('TASK_STATE_TELEPORTED') });
      const store = new MemoryIntentStore();
      const key = mintKey();
      const err = await (async () => {
        for await (const ev of client('JSONRPC', store).sendStream('stream me', { key })) void ev;
      })().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OutcomeUnknownError);
      expect((err as Error).cause).toBeInstanceOf(InvalidAgentResponseError);
      expect((await store.pending()).map((i) => i.key)).toEqual([key]);
    });

    it('a later event it cannot read: outcome unknown, naming the task the stream had named', async () => {
      peer.contentType = 'text/event-stream';
      peer.body =
        event({ task: task('TASK_STATE_WORKING') }) +
        event({
          statusUpdate: { taskId: 'task-1', contextId: 'ctx-1', status: { state: 'TASK_STATE_TELEPORTED' } },
        });
      const seen: unknown[] = [];
      const err = await (async () => {
        for await (const ev of client('JSONRPC', new MemoryIntentStore()).sendStream('stream me', {
          key: mintKey(),
        }))
          seen.push(ev);
      })().catch((e: unknown) => e);
      expect(seen).toHaveLength(1);
      expect(err).toBeInstanceOf(OutcomeUnknownError);
      expect((err as OutcomeUnknownError).taskId).toBe('task-1');
    });

    it('a subscription (a read: nothing ran) keeps the reading error', async () => {
      peer.contentType = 'text/event-stream';
      peer.body = event({ task: task('TASK_STATE_TELEPORTED') });
      const err = await (async () => {
        for await (const ev of client('JSONRPC').subscribe('task-1')) void ev;
      })().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidAgentResponseError);
    });
  });
});
