/**
 * A stream broken after every event index in turn resumes on the OTHER replica with nothing lost and nothing
 * twice (docs/semantics.md §7 "Resuming a stream", ADR 0124, ADR 0125): two replicas (each its own server,
 * store instance and connection pool, sharing only the database: PostgreSQL for real, and SQLite on one file),
 * each behind a loopback TCP proxy, and a round-robin balancer in the client's `fetch`, so the re-attachment
 * after a cut lands on the replica that did not serve the broken stream. The proxies are cut right after the
 * consumer takes event i; what the consumer saw is compared with the task's log: the snapshot, then every
 * logged event exactly once, in order, as the log holds it. Over JSON-RPC and HTTP+JSON, and over gRPC through a
 * round-robin TCP balancer in front of both replicas' gRPC listeners.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient, cardUrlOf, fetchAgentCard } from '../../../src/client/index.js';
import { grpcTransport } from '../../../src/client/grpc/index.js';
import { serveGrpc, type GrpcServerHandle } from '../../../src/server/grpc/index.js';
import { mintKey } from '../../../src/idempotency/index.js';
import type { AgentCard } from '../../../src/protocol/agent-card.js';
import type { StreamResponse } from '../../../src/protocol/model.js';
import type { AgentContext, AgentExecutor } from '../../../src/server/agent-executor.js';
import { createA2AServer, type A2AServer } from '../../../src/server/create-server.js';
import { serveNode, type NodeServerHandle } from '../../../src/server/node/index.js';
import { openStore, type OpenedStore } from '../../../src/store/open-store.js';
import { DEFAULT_SCOPE } from '../../../src/store/scope.js';
import { closeNode } from '../../helpers/close-node.js';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.js';
import { dropSchema, freshSchemaUrl, postgresAvailable } from '../../processes/postgres-server.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The agent's log: WORKING, 8 artifact chunks, COMPLETED: 10 events, each durable before the next. */
const CHUNKS = 8;
const agent: AgentExecutor = {
  async execute(ctx: AgentContext): Promise<void> {
    await ctx.working();
    await ctx.flush();
    for (let i = 0; i < CHUNKS; i++) {
      await sleep(25);
      await ctx.artifact({ artifactId: 'out', parts: [{ text: `chunk ${i}` }] }, { append: i > 0 });
      await ctx.flush();
    }
    await sleep(25);
    await ctx.complete();
  },
};

interface Replica {
  readonly store: OpenedStore;
  readonly server: A2AServer;
  readonly http: NodeServerHandle;
  readonly proxy: TcpProxy;
  /** Its gRPC listener (direct; the gRPC test puts one balancer in front of both). */
  readonly grpc: GrpcServerHandle;
  /** `http://127.0.0.1:<proxy port>`. */
  readonly url: string;
}

async function startReplica(storeUrl: string): Promise<Replica> {
  const store = await openStore(storeUrl, { pollIntervalMs: 20 });
  const server = createA2AServer({
    agent,
    card: { name: 'chunks', description: 'eight chunks', capabilities: { streaming: true } },
    store,
  });
  const http = await serveNode(server.fetch, { host: '127.0.0.1', port: 0 });
  const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(http.url).port) });
  const grpc = await serveGrpc(server, { host: '127.0.0.1', port: 0 });
  return { store, server, http, proxy, grpc, url: `http://127.0.0.1:${proxy.port}` };
}

async function stopReplica(r: Replica | undefined): Promise<void> {
  if (!r) return;
  await r.proxy.close();
  await r.grpc.close({ graceMs: 200 });
  await closeNode(r.http);
  await r.server.close();
}

/**
 * A round-robin balancer over the replicas: every request the client makes (an opening, a re-attachment) goes
 * to the next replica, whatever URL the card gave. `served` records which replica took each stream request.
 */
function balancer(replicas: readonly Replica[]): { fetch: typeof fetch; served: string[] } {
  let next = 0;
  const served: string[] = [];
  const lb = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const req = new Request(input, init);
    const i = next++ % replicas.length;
    const to = new URL(req.url);
    to.host = new URL(replicas[i]!.url).host;
    if (req.method === 'POST') served.push(String.fromCharCode(65 + i));
    return fetch(new Request(to, req));
  };
  return { fetch: lb, served };
}

/**
 * One logical stream of a fresh task through `client`, broken by `cut()` right after the consumer takes event
 * `cutAfter`; while the consumer holds the stream, the task moves on, so the re-attachment has events to catch up
 * on (seen[i] is event i; the snapshot is event 0), which a snapshot could only summarise. Checks what the
 * consumer saw against the task's log.
 */
async function trial(client: A2AClient, replicas: readonly Replica[], cutAfter: number, cut: () => void) {
  const seen: StreamResponse[] = [];
  for await (const ev of client.sendStream({
    messageId: `resume-${mintKey()}`,
    role: 'ROLE_USER',
    parts: [{ text: 'go' }],
  })) {
    seen.push(ev);
    if (seen.length - 1 === cutAfter) {
      cut();
      const taskId = (seen[0] as { task: { id: string } }).task.id;
      const target = Math.min(cutAfter + 3, CHUNKS + 2);
      while (((await replicas[0]!.store.getTask(DEFAULT_SCOPE, taskId))?.seq ?? 0) < target) await sleep(10);
    }
  }
  const first = seen[0]!;
  expect('task' in first, `cut after ${cutAfter}: the stream starts with the task`).toBe(true);
  const taskId = (first as { task: { id: string } }).task.id;
  const log = (await replicas[1]!.store.readEvents(DEFAULT_SCOPE, taskId, 0)).map((e) => e.event);
  expect(log).toHaveLength(CHUNKS + 2);
  expect({ cutAfter, events: seen.slice(1) }).toEqual({ cutAfter, events: log });
}

const RETRY = { maxAttempts: 6, backoff: { initialMs: 5, maxMs: 20 } };

function describeBackend(
  name: string,
  up: boolean,
  url: () => Promise<string>,
  done: () => Promise<void>,
): void {
  describe.skipIf(!up)(`a stream resumed across two replicas on ${name}`, () => {
    let replicas: Replica[] = [];
    let card: AgentCard;
    beforeAll(async () => {
      if (!up) return;
      const storeUrl = await url();
      replicas = [await startReplica(storeUrl), await startReplica(storeUrl)];
      card = await fetchAgentCard(cardUrlOf(replicas[0]!.http.url));
    });
    afterAll(async () => {
      await Promise.all(replicas.map(stopReplica));
      await done();
    });

    it.each(['JSONRPC', 'HTTP+JSON'] as const)(
      '%s: cut after each event index in turn, the consumer sees the log exactly once, in order',
      async (binding) => {
        let reattachedElsewhere = 0;
        for (let cutAfter = 0; cutAfter <= CHUNKS + 1; cutAfter++) {
          const lb = balancer(replicas);
          const client = A2AClient.fromCard(card, {
            fetch: lb.fetch,
            retry: RETRY,
            attemptTimeoutMs: 10_000,
            preferredBindings: [binding],
          });
          // Every connection, both sides, of both replicas.
          await trial(client, replicas, cutAfter, () => replicas.forEach((r) => r.proxy.cut()));
          // The keyed send went to one replica; the re-attachment after the cut to the other (a cut that came
          // after the last event was already read needs none).
          if (lb.served.length >= 2) {
            expect(lb.served[1], `cut after ${cutAfter}: ${lb.served.join(',')}`).not.toBe(lb.served[0]);
            reattachedElsewhere++;
          }
        }
        expect(reattachedElsewhere).toBeGreaterThanOrEqual(CHUNKS);
      },
      120_000,
    );

    it('GRPC: cut after each event index in turn, the consumer sees the log exactly once, in order', async () => {
      // A round-robin TCP balancer in front of both gRPC listeners: the channel's new connection after a cut goes
      // to the other replica.
      const lb = await startTcpProxy(replicas.map((r) => ({ host: '127.0.0.1', port: r.grpc.port })));
      try {
        const http = card.supportedInterfaces[0]!;
        const grpcCard: AgentCard = {
          ...card,
          supportedInterfaces: [{ ...http, url: `127.0.0.1:${lb.port}`, protocolBinding: 'GRPC' }],
        };
        let reattachedElsewhere = 0;
        for (let cutAfter = 0; cutAfter <= CHUNKS + 1; cutAfter++) {
          // The client's channel may outlive a client (one per address): count the connection already open too.
          const before = lb.connections().findIndex((c) => c.open);
          const from = before === -1 ? lb.connections().length : before;
          const client = A2AClient.fromCard(grpcCard, {
            transports: [grpcTransport({ insecure: true })],
            preferredBindings: ['GRPC'],
            retry: RETRY,
            attemptTimeoutMs: 10_000,
          });
          await trial(client, replicas, cutAfter, () => lb.cut());
          const used = new Set(
            lb
              .connections()
              .slice(from)
              .map((c) => c.target),
          );
          if (used.size === 2) reattachedElsewhere++;
        }
        expect(reattachedElsewhere).toBeGreaterThanOrEqual(CHUNKS);
      } finally {
        await lb.close();
      }
    }, 120_000);
  });
}

const pgUp = await postgresAvailable();
if (!pgUp)
  console.warn('NOTICE: PostgreSQL is not reachable on 127.0.0.1:5432; skipping its replica resume test.');
const pg = freshSchemaUrl('a2a_stream_resume');
describeBackend(
  'PostgreSQL',
  pgUp,
  () => Promise.resolve(pg.url),
  () => dropSchema(pg.schema).catch(() => undefined),
);

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-resume-'));
describeBackend(
  'SQLite (one file)',
  true,
  () => Promise.resolve(`sqlite:${join(dir, 'tasks.db')}`),
  () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
);
