/**
 * A key is scoped to its tenant (docs/semantics.md §1), so a keyed send is bound to the tenant of its first attempt and
 * never resent to an interface of another tenant, which would run it again (ADR 0034): not after an interface
 * goes down, not when many sends fail over at once, not in a re-attached stream, not in recovery after a restart.
 * Against the a2a-once server (spawned from dist), each interface reached through its own fault proxy.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  A2AClient,
  OutcomeUnknownError,
  RetryBudget,
  SqliteIntentStore,
  TransportError,
  cardUrlOf,
  fetchAgentCard,
} from '../../src/client/index.js';
import type { A2AClientOptions } from '../../src/client/index.js';
import type { AgentCard, AgentInterface } from '../../src/protocol/agent-card.js';
import type { Message, StreamResponse } from '../../src/protocol/model.js';
import { mintKey } from '../../src/idempotency/index.js';
import { SERVER_BUILT, startOnceServer } from './harness/a2a-once-server.js';
import type { OnceServer } from './harness/a2a-once-server.js';
import { FaultProxy, isCall } from './harness/fault-proxy.js';
import type { SeenRequest } from './harness/fault-proxy.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-tenants-'));
let server: OnceServer;
let card: AgentCard;
const proxies: FaultProxy[] = [];

async function proxy(): Promise<FaultProxy> {
  const p = await FaultProxy.start(server.url);
  proxies.push(p);
  return p;
}

/** The server's interface of `binding`, through `via`, under `tenant`. */
function iface(
  via: FaultProxy,
  tenant: string,
  binding: 'JSONRPC' | 'HTTP+JSON' = 'JSONRPC',
): AgentInterface {
  const i = card.supportedInterfaces.find((x) => x.protocolBinding === binding)!;
  return { ...i, url: via.via(i.url), tenant };
}

/** A card listing exactly these interfaces, in this order. */
function cardWith(interfaces: AgentInterface[]): AgentCard {
  return { ...card, supportedInterfaces: interfaces };
}

/**
 * Backoff pinned near 300 ms (`random` ~1), so a test can take an interface down between two attempts; a large
 * budget so that many sends failing together are all retried.
 */
const paced: A2AClientOptions = {
  retry: {
    maxAttempts: 6,
    backoff: { initialMs: 300, maxMs: 300 },
    random: () => 0.99,
    budget: new RetryBudget({ maxTokens: 10_000 }),
  },
  attemptTimeoutMs: 5_000,
};

function fresh(text: string): Message {
  return { messageId: `tn-${mintKey()}`, role: 'ROLE_USER', parts: [{ text }] };
}

const carrying =
  (messageId: string) =>
  (r: SeenRequest): boolean =>
    r.body.includes(messageId);

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe.skipIf(!SERVER_BUILT)('a keyed send stays on the tenant of its first attempt (ADR 0034)', () => {
  beforeAll(async () => {
    server = await startOnceServer(dir, 'slow', 50);
    card = await fetchAgentCard(cardUrlOf(server.url));
  });
  afterEach(async () => {
    await Promise.all(proxies.splice(0).map((p) => p.close()));
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('after its interface goes down, it is resent to the next interface of its own tenant, never another', async () => {
    const [a, b, c] = [await proxy(), await proxy(), await proxy()];
    const client = A2AClient.fromCard(cardWith([iface(a, 't1'), iface(b, 't2'), iface(c, 't1')]), paced);
    const message = fresh('stays in t1');
    a.inject({ kind: 'drop-response' }, isCall('SendMessage'), 100);
    const sent = client.send(message);
    // The peer ran it in t1 and the answer was lost; now t1's first interface goes away.
    await until(() => server.executionsOf(message.messageId) === 1, 'the first execution');
    await a.close();
    const res = await sent;
    expect('task' in res && res.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(b.count(carrying(message.messageId))).toBe(0);
    expect(c.count(carrying(message.messageId))).toBe(1);
    expect(server.executionsOf(message.messageId)).toBe(1);
  });

  it('many keyed sends failing over at once each stay on their tenant, and each runs once', async () => {
    const [a, b, c] = [await proxy(), await proxy(), await proxy()];
    // Several t2 interfaces between the two of t1: however many sends fail over at the same moment, a
    // client-wide "current interface" lands on t2.
    const t2 = Array.from({ length: 6 }, () => iface(b, 't2'));
    const client = A2AClient.fromCard(cardWith([iface(a, 't1'), ...t2, iface(c, 't1')]), paced);
    const messages = Array.from({ length: 16 }, (_, n) => fresh(`race ${n}`));
    a.inject({ kind: 'drop-response' }, isCall('SendMessage'), 1_000);
    // Started 15 ms apart, so they overlap but reach the interface going down one after another: each sees the
    // others' failovers, which is where a client-wide "current interface" would move a keyed resend to t2.
    const sends = messages.map(async (m, n) => {
      await new Promise((r) => setTimeout(r, n * 15));
      return client.send(m);
    });
    await until(() => messages.every((m) => server.executionsOf(m.messageId) === 1), 'every first execution');
    await a.close();
    const results = await Promise.all(sends);
    for (const res of results) expect('task' in res && res.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(b.count(isCall('SendMessage'))).toBe(0);
    for (const m of messages) expect(server.executionsOf(m.messageId)).toBe(1);
  });

  it('a cut keyed stream re-attaches on its own tenant', async () => {
    const [a, b, c] = [await proxy(), await proxy(), await proxy()];
    const client = A2AClient.fromCard(cardWith([iface(a, 't1'), iface(b, 't2'), iface(c, 't1')]), paced);
    const message = fresh('streamed in t1');
    a.inject({ kind: 'cut-stream', afterEvents: 1 }, isCall('SendStreamingMessage'));
    const events: StreamResponse[] = [];
    const done = (async () => {
      for await (const ev of client.sendStream(message)) events.push(ev);
    })();
    await until(() => events.length >= 1, 'the first event');
    await a.close();
    await done;
    const taskId = events.flatMap((e) => ('task' in e ? [e.task.id] : []))[0]!;
    expect(b.count(carrying(message.messageId))).toBe(0);
    expect(b.count(carrying(taskId))).toBe(0);
    // The stream was numbered: the client resumes it by SubscribeToTask with Last-Event-ID (ADR 0126), on the
    // other interface of the task's own tenant.
    const resumes = c.requests.filter((r) => isCall('SubscribeToTask')(r) && carrying(taskId)(r));
    expect(resumes).toHaveLength(1);
    expect(resumes[0]!.headers['last-event-id']).toBeDefined();
    expect(resumes[0]!.body).toContain('"tenant":"t1"');
    expect(server.executionsOf(message.messageId)).toBe(1);
    const states = events.flatMap((e) => ('statusUpdate' in e ? [e.statusUpdate.status.state] : []));
    expect(states.at(-1)).toBe('TASK_STATE_COMPLETED');
  });

  it('recovery after a restart resends a pending intent to the tenant it was first sent to', async () => {
    const p = await proxy();
    const interfaces = [iface(p, 't1', 'JSONRPC'), iface(p, 't2', 'HTTP+JSON')];
    const file = join(dir, 'tenant-intents.db');
    const first = A2AClient.fromCard(cardWith(interfaces), {
      ...paced,
      retry: false,
      preferredBindings: ['JSONRPC'],
      intentStore: new SqliteIntentStore(new Database(file)),
      cardUrl: cardUrlOf(p.url),
    });
    const message = fresh('recovered in t1');
    p.inject({ kind: 'drop-response' }, carrying(message.messageId));
    await expect(first.send(message)).rejects.toBeInstanceOf(OutcomeUnknownError);
    expect(server.executionsOf(message.messageId)).toBe(1);

    // The restarted client prefers the other binding, whose interface belongs to t2.
    const restarted = A2AClient.fromCard(cardWith(interfaces), {
      ...paced,
      preferredBindings: ['HTTP+JSON'],
      intentStore: new SqliteIntentStore(new Database(file)),
      cardUrl: cardUrlOf(p.url),
    });
    expect(restarted.endpoint.tenant).toBe('t2');
    const report = await restarted.recoverPending();
    expect(report.map((r) => r.status)).toEqual(['resent']);
    const res = report[0]!.response!;
    expect('task' in res && res.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(server.executionsOf(message.messageId)).toBe(1);
    const sent = p.requests.filter(carrying(message.messageId));
    expect(sent).toHaveLength(2);
    for (const r of sent) expect(r.body).toContain('"tenant":"t1"');
  });

  it('a keyed send whose tenant has no reachable interface ends as not sent rather than move tenant', async () => {
    const [a, b] = [await proxy(), await proxy()];
    const interfaces = [iface(a, 't1'), iface(b, 't2')];
    await a.close();
    const client = A2AClient.fromCard(cardWith(interfaces), {
      retry: { maxAttempts: 3, backoff: { initialMs: 1, maxMs: 5 } },
    });
    const message = fresh('nowhere to go in t1');
    const err = await client.send(message).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).kind).toBe('not-sent');
    expect(b.count(carrying(message.messageId))).toBe(0);
    expect(server.executionsOf(message.messageId)).toBe(0);
    // An unkeyed send has nothing to bind: it moves on, as ever after a failure that sent nothing.
    const unkeyed = fresh('unkeyed may move');
    const res = await client.send(unkeyed, { key: false });
    expect('task' in res).toBe(true);
    expect(b.count(carrying(unkeyed.messageId))).toBe(1);
  });
});
