/**
 * Two replicas of one agent on one PostgreSQL database (docs/semantics.md §1 "Scope", §4): a keyed send answered
 * by replica A and retried on replica B is one task, because the key is claimed in the shared store. Replicas are
 * two servers in one process here for brevity; in production they are separate processes or machines pointing at
 * the same database URL. Tested in test/examples/two-replicas-postgres.test.ts (skipped with a notice when no
 * PostgreSQL answers).
 */
import { A2AClient } from 'a2a-once/client';
import { openStore } from 'a2a-once';
import { createA2AServer } from 'a2a-once/server';
import { serveNode, type NodeServerHandle } from 'a2a-once/server/node';

/** Two replicas of the `shipping` agent on `databaseUrl` (e.g. `postgres://app@db.internal/agents`). */
export async function startReplicas(
  databaseUrl: string,
): Promise<{ urls: [string, string]; runs(): number; close(): Promise<void> }> {
  let runs = 0;
  const replica = async (): Promise<{ http: NodeServerHandle; close(): Promise<void> }> => {
    const server = createA2AServer({
      card: { name: 'shipping', description: 'Books one shipment per order' },
      // Each replica opens its own pool on the same database; the schema is migrated on open.
      store: await openStore(databaseUrl),
      agent: {
        async execute(ctx) {
          runs++;
          await ctx.artifact({ name: 'booking', parts: [{ text: `booked: ${ctx.userText}` }] });
          await ctx.complete();
        },
      },
    });
    const http = await serveNode(server.fetch);
    return { http, close: async () => (await http.close(), await server.close()) };
  };
  const a = await replica();
  const b = await replica();
  return {
    urls: [a.http.url, b.http.url],
    runs: () => runs,
    close: async () => {
      await a.close();
      await b.close();
    },
  };
}

/** A keyed send to replica A, then the same send to replica B (a client that failed over): one task. */
export async function bookAcrossReplicas(urls: [string, string], orderId: string): Promise<[string, string]> {
  const key = `order-${orderId}-shipment`;
  const ids: string[] = [];
  for (const url of urls) {
    const client = await A2AClient.fromCardUrl(url);
    const answer = await client.send(`ship order ${orderId}`, { key });
    ids.push('task' in answer ? answer.task.id : '');
  }
  return [ids[0]!, ids[1]!];
}
