/**
 * docs/semantics.md §7 against a peer that honours keys (the a2a-once server, spawned from dist): whatever the fault,
 * a keyed send runs exactly once and the caller gets a definite answer; a stream cut mid-way re-attaches by a
 * keyed resend and shows each update once; a send a crash left pending is recovered with its key.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  A2AClient,
  OutcomeUnknownError,
  SqliteIntentStore,
  cardUrlOf,
  fetchAgentCard,
} from '../../src/client/index.js';
import type { A2AClientOptions } from '../../src/client/index.js';
import type { AgentCard } from '../../src/protocol/agent-card.js';
import type { Message, SendMessageResponse, StreamResponse } from '../../src/protocol/model.js';
import { mintKey, setKey } from '../../src/idempotency/index.js';
import { CLI_PATH, SERVER_BUILT, startOnceServer } from './harness/a2a-once-server.js';
import type { OnceServer } from './harness/a2a-once-server.js';
import { FaultProxy, isCall } from './harness/fault-proxy.js';
import type { Fault, SeenRequest } from './harness/fault-proxy.js';

if (!SERVER_BUILT) {
  console.warn(
    `skipping the a2a-once server tests: ${CLI_PATH} is missing (run \`npm run build\`, or \`npm test\`)`,
  );
}

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-client-'));
let server: OnceServer;
let proxy: FaultProxy;
let card: AgentCard;

const fast: A2AClientOptions = {
  retry: { maxAttempts: 5, backoff: { initialMs: 20, maxMs: 100 } },
  attemptTimeoutMs: 5_000,
};

function viaProxy(binding: 'JSONRPC' | 'HTTP+JSON', extra: A2AClientOptions = {}): A2AClient {
  const proxied = {
    ...card,
    supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, url: proxy.via(i.url) })),
  };
  return A2AClient.fromCard(proxied, {
    ...fast,
    preferredBindings: [binding],
    cardUrl: cardUrlOf(proxy.url),
    ...extra,
  });
}

/** Requests of one operation carrying one message (so a late request of another test never matches). */
function ofMessage(op: string, messageId: string): (r: SeenRequest) => boolean {
  const call = isCall(op);
  return (r) => call(r) && r.body.includes(messageId);
}

function messageIdOf(res: SendMessageResponse): string | undefined {
  return 'task' in res ? res.task.history?.find((m) => m.role === 'ROLE_USER')?.messageId : undefined;
}

describe.skipIf(!SERVER_BUILT)('against an a2a-once server (honours keys)', () => {
  beforeAll(async () => {
    server = await startOnceServer(dir);
    proxy = await FaultProxy.start(server.url);
    card = await fetchAgentCard(cardUrlOf(server.url));
  });
  afterAll(async () => {
    await proxy?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => proxy.reset());

  it('reads the key advertisement off the card', () => {
    expect(viaProxy('JSONRPC').peerHonoursKeys).toBe(true);
  });

  const faults: [string, Fault, A2AClientOptions][] = [
    ['the response dropped after forwarding', { kind: 'drop-response' }, {}],
    ['a reset mid-request', { kind: 'reset-request' }, {}],
    ['a delay past the attempt timeout', { kind: 'delay', ms: 3_000 }, { attemptTimeoutMs: 600 }],
    ['503 with Retry-After', { kind: 'refuse', status: 503, retryAfter: '1' }, {}],
    ['502 after the peer ran it', { kind: 'bad-gateway', status: 502 }, {}],
  ];

  describe.each(['JSONRPC', 'HTTP+JSON'] as const)('%s', (binding) => {
    it.each(faults)(
      'keyed send through %s: one execution and a definite answer',
      async (_name, fault, extra) => {
        const client = viaProxy(binding, extra);
        const message: Message = {
          messageId: `m-${mintKey()}`,
          role: 'ROLE_USER',
          parts: [{ text: `once ${binding}` }],
        };
        const sends = ofMessage('SendMessage', message.messageId);
        proxy.inject(fault, sends);
        const res = await client.send(message);
        expect('task' in res && res.task.status.state).toBe('TASK_STATE_COMPLETED');
        expect(messageIdOf(res)).toBe(message.messageId);
        expect(proxy.count(sends)).toBeGreaterThanOrEqual(2);
        expect(server.executionsOf(message.messageId)).toBe(1);
      },
    );

    it.each([0, 2])(
      // Before any numbered event the client can only resend the keyed message; after one it resumes the task's
      // stream by SubscribeToTask with Last-Event-ID (ADR 0126). Either way each update arrives once.
      'a stream cut after %i events re-attaches once, each update once',
      async (afterEvents) => {
        const client = viaProxy(binding);
        const message: Message = {
          messageId: `s-${mintKey()}`,
          role: 'ROLE_USER',
          parts: [{ text: 'streamed once' }],
        };
        const streams = ofMessage('SendStreamingMessage', message.messageId);
        proxy.inject({ kind: 'cut-stream', afterEvents }, streams);
        const events: StreamResponse[] = [];
        for await (const ev of client.sendStream(message)) events.push(ev);
        const taskId = events.flatMap((e) => ('task' in e ? [e.task.id] : []))[0]!;
        const resumes = proxy.requests.filter(
          (r) =>
            isCall('SubscribeToTask')(r) &&
            (r.body.includes(taskId) || r.path.includes(taskId)) &&
            r.headers['last-event-id'] !== undefined,
        );
        if (afterEvents === 0) {
          expect(proxy.count(streams)).toBe(2); // the keyed resend
          expect(resumes).toHaveLength(0);
        } else {
          expect(proxy.count(streams)).toBe(1);
          expect(resumes).toHaveLength(1);
        }
        expect(server.executionsOf(message.messageId)).toBe(1);
        expect(events.filter((e) => 'task' in e)).toHaveLength(1);
        const states = events.flatMap((e) =>
          'statusUpdate' in e ? [JSON.stringify(e.statusUpdate.status)] : [],
        );
        expect(new Set(states).size).toBe(states.length);
        expect(states.filter((s) => s.includes('TASK_STATE_COMPLETED'))).toHaveLength(1);
        const texts = events.flatMap((e) => ('artifactUpdate' in e ? e.artifactUpdate.artifact.parts : []));
        expect(texts).toEqual([{ text: 'echo: streamed once' }]);
      },
    );
  });

  it('a send whose client died after the request was written is recovered with its key, once', async () => {
    const store = new SqliteIntentStore(new Database(join(dir, 'intents.db')));
    const first = viaProxy('JSONRPC', { intentStore: store, retry: false });
    const message: Message = {
      messageId: `r-${mintKey()}`,
      role: 'ROLE_USER',
      parts: [{ text: 'recover me' }],
    };
    proxy.inject({ kind: 'drop-response' }, ofMessage('SendMessage', message.messageId));
    const err = await first.send(message).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect((err as OutcomeUnknownError).peerHonoursKeys).toBe(true);
    expect(server.executionsOf(message.messageId)).toBe(1);

    const restarted = viaProxy('JSONRPC', {
      intentStore: new SqliteIntentStore(new Database(join(dir, 'intents.db'))),
    });
    const report = await restarted.recoverPending();
    expect(report.map((r) => r.status)).toEqual(['resent']);
    const res = report[0]!.response!;
    expect('task' in res && res.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(server.executionsOf(message.messageId)).toBe(1);
    expect(await restarted.recoverPending()).toEqual([]);
  });

  it('a recovery resend that reaches nothing leaves the intent pending: an earlier run may have sent it', async () => {
    const file = join(dir, 'intents-unreachable.db');
    const first = viaProxy('JSONRPC', {
      intentStore: new SqliteIntentStore(new Database(file)),
      retry: false,
    });
    const message: Message = {
      messageId: `u-${mintKey()}`,
      role: 'ROLE_USER',
      parts: [{ text: 'recover me later' }],
    };
    proxy.inject({ kind: 'drop-response' }, ofMessage('SendMessage', message.messageId));
    await expect(first.send(message)).rejects.toBeInstanceOf(OutcomeUnknownError);
    expect(server.executionsOf(message.messageId)).toBe(1);

    // Restarted while the agent cannot be reached: every resend is "not sent", yet the first run's was.
    const dead = await FaultProxy.start(server.url);
    await dead.close();
    const unreachable = A2AClient.fromCard(
      {
        ...card,
        supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, url: dead.via(i.url) })),
      },
      { ...fast, cardUrl: cardUrlOf(proxy.url), intentStore: new SqliteIntentStore(new Database(file)) },
    );
    const failed = await unreachable.recoverPending();
    expect(failed.map((r) => r.status)).toEqual(['failed']);
    expect(failed[0]!.error).toBeInstanceOf(OutcomeUnknownError);

    const reachable = viaProxy('JSONRPC', { intentStore: new SqliteIntentStore(new Database(file)) });
    const report = await reachable.recoverPending();
    expect(report.map((r) => r.status)).toEqual(['resent']);
    expect(server.executionsOf(message.messageId)).toBe(1);
  });

  it('a send recorded but never attempted (crash before the first attempt) runs once on recovery', async () => {
    const store = new SqliteIntentStore(new Database(join(dir, 'intents-2.db')));
    const key = mintKey();
    const message = setKey(
      { messageId: `c-${mintKey()}`, role: 'ROLE_USER', parts: [{ text: 'never sent' }] },
      key,
    );
    await store.record({
      key,
      messageId: message.messageId,
      target: cardUrlOf(proxy.url),
      request: { message },
      streaming: false,
      createdAt: Date.now(),
    });
    const client = viaProxy('HTTP+JSON', { intentStore: store });
    const report = await client.recoverPending();
    expect(report.map((r) => r.status)).toEqual(['resent']);
    expect(server.executionsOf(message.messageId)).toBe(1);
  });

  it('resending by hand with the key and messageId of an outcome-unknown send replays it', async () => {
    const client = viaProxy('JSONRPC', { retry: false });
    proxy.inject({ kind: 'drop-response' }, (r) => isCall('SendMessage')(r) && r.body.includes('by hand'));
    const err = (await client.send('by hand').catch((e: unknown) => e)) as OutcomeUnknownError;
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    const again = await client.send(
      { messageId: err.messageId, parts: [{ text: 'by hand' }] },
      { key: err.key! },
    );
    expect('task' in again && again.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(server.executionsOf(err.messageId)).toBe(1);
  });
});
