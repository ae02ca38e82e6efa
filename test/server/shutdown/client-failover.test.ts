/**
 * A draining replica's refusal is what our client retries elsewhere (ADR 0088): two replicas on one store, a
 * client whose card lists both (the draining one first); replica A starts closing with a turn still running, and a
 * new keyed send through the client is refused by A as "nothing ran" (503, `Retry-After`), retried, and once A's
 * listener is gone, sent to B, where it runs once. The running turn on A finishes within the grace, and the keyed
 * send made again replays B's task: one run for each key.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { A2AClient } from '../../../src/client/index.js';
import { TransportError } from '../../../src/client/index.js';
import type { RetryEvent } from '../../../src/client/index.js';
import type { AgentCard } from '../../../src/protocol/agent-card.js';
import { createA2AServer, type A2AServer } from '../../../src/server/create-server.js';
import { serveNode, type NodeServerHandle } from '../../../src/server/node/index.js';
import { silentLogger } from '../../../src/server/observability/logger.js';
import { MemoryTaskStore } from '../../../src/store/memory/memory-task-store.js';

const runs = new Map<string, number>();
let servers: A2AServer[] = [];
let handles: NodeServerHandle[] = [];

afterEach(async () => {
  await Promise.all(handles.map((h) => h.close({ graceMs: 0 })));
  await Promise.all(servers.map((s) => s.close({ graceMs: 0 })));
  servers = [];
  handles = [];
  runs.clear();
});

async function replica(
  store: MemoryTaskStore,
  name: string,
): Promise<{ server: A2AServer; http: NodeServerHandle }> {
  const server = createA2AServer({
    card: { name: 'pair', description: 'two replicas' },
    store,
    logger: silentLogger,
    agent: {
      async execute(ctx) {
        const text = ctx.userText;
        runs.set(text, (runs.get(text) ?? 0) + 1);
        if (text === 'long') await new Promise((r) => setTimeout(r, 400));
        await ctx.artifact({ name: 'by', parts: [{ text: name }] });
        await ctx.complete();
      },
    },
  });
  const http = await serveNode(server.fetch, { host: '127.0.0.1', port: 0 });
  servers.push(server);
  handles.push(http);
  return { server, http };
}

describe('a client and a draining replica', () => {
  it('retries the refused send, then sends it to the other replica, where it runs once', async () => {
    const store = new MemoryTaskStore();
    const a = await replica(store, 'A');
    const b = await replica(store, 'B');
    const base = (await (await fetch(`${a.http.url}/.well-known/agent-card.json`)).json()) as AgentCard;
    const card: AgentCard = {
      ...base,
      supportedInterfaces: [
        { url: `${a.http.url}/`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: `${b.http.url}/`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ],
    };
    const retries: RetryEvent[] = [];
    const client = A2AClient.fromCard(card, { retry: { onRetry: (e) => retries.push(e) } });
    expect(client.peerHonoursKeys).toBe(true);

    const running = client.send('long', { key: 'drain-long-running-01' });
    await new Promise((r) => setTimeout(r, 100)); // the long turn runs on A; the client's connection to A is open
    // As `serve` closes: the listener and the server together, idle connections once the drain is over.
    const closing = Promise.all([
      a.http.close({ graceMs: 3000 }),
      a.server.close({ graceMs: 3000 }).finally(() => a.http.server.closeIdleConnections()),
    ]);

    const moved = await client.send('moved', { key: 'drain-moved-send-0001' });
    if (!('task' in moved)) throw new Error('expected a task');
    expect(moved.task.status.state).toBe('TASK_STATE_COMPLETED');
    const by = moved.task.artifacts?.[0]?.parts[0];
    expect(by && 'text' in by ? by.text : '').toBe('B');
    // A said no before anything ran (503, on the connection it kept open), then refused connections: the client
    // retried and moved on, never meeting an ambiguous failure.
    const kinds = retries.map((e) => (e.error instanceof TransportError ? e.error.kind : 'other'));
    expect(kinds[0]).toBe('refused');
    expect(kinds).not.toContain('ambiguous');
    const long = await running;
    expect('task' in long && long.task.status.state).toBe('TASK_STATE_COMPLETED');
    await closing;

    const again = await client.send('moved', { key: 'drain-moved-send-0001' });
    expect('task' in again && again.task.id).toBe(moved.task.id);
    expect(runs.get('moved')).toBe(1);
    expect(runs.get('long')).toBe(1);
  }, 20_000);
});
