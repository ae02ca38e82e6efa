/**
 * A real a2a-once child agent for the delegation tests, listening on 127.0.0.1 behind a fault proxy. Its agent
 * counts executions per message (in this process: the child runs here), completes "quick" work at once, asks
 * back on "ask" work (INPUT_REQUIRED), asks for authorization on "auth" work (AUTH_REQUIRED) and holds "hold" work until its turn is stopped. The server's runner arms
 * the delegation limits of each turn: a passed budget fails the task with the budget message, a lease whose
 * renewals (recorded in the store by the GetTask polls that carry them) stopped cancels it.
 */
import type { AgentContext } from '../../../src/server/agent-executor.js';
import { createA2AServer, type A2AServer } from '../../../src/server/create-server.js';
import { advertiseDelegation } from '../../../src/server/delegation/index.js';
import { MemoryTaskStore } from '../../../src/store/memory/index.js';
import { serveNode, type NodeServerHandle } from '../../../src/server/node/index.js';
import { A2AClient, cardUrlOf, fetchAgentCard } from '../../../src/client/index.js';
import { FaultProxy } from '../../client/harness/fault-proxy.js';
import { closeNode } from '../../helpers/close-node.js';

/** A running child. */
export interface ChildServer {
  readonly server: A2AServer;
  /** The child's own URL (no faults). */
  readonly directUrl: string;
  /** The fault proxy in front of it: give parents this URL. */
  readonly proxy: FaultProxy;
  /** When the child's store last recorded a parent renewal of `taskId` (default tenant and principal). */
  lastRenewal(taskId: string): Promise<number | undefined>;
  /** Every turn the agent ran, in order. */
  readonly turns: AgentContext[];
  /** How many turns ran for `messageId`. */
  executionsOf(messageId: string): number;
  close(): Promise<void>;
}

/** Starts a child: `honoursKeys: false` gives it no store key support advertised on its card. */
export async function startChild(): Promise<ChildServer> {
  const store = new MemoryTaskStore();
  const turns: AgentContext[] = [];
  const server = createA2AServer({
    store,
    card: {
      name: 'child',
      description: 'delegation test child',
      capabilities: advertiseDelegation({ streaming: true }),
    },
    retention: false,
    agent: {
      async execute(ctx) {
        turns.push(ctx);
        if (ctx.userText.startsWith('ask')) {
          await ctx.requireInput('which region?');
          return;
        }
        if (ctx.userText.startsWith('auth')) {
          await ctx.requireAuth('sign in to the ledger first');
          return;
        }
        if (ctx.userText.startsWith('quick')) {
          await ctx.artifact({ artifactId: 'out', parts: [{ text: `done: ${ctx.userText}` }] });
          return;
        }
        await ctx.working('holding');
        // Held until the turn is stopped: a cancel, or a delegation limit the runner enforces.
        await new Promise<void>((resolve) => {
          if (ctx.signal.aborted) resolve();
          ctx.signal.addEventListener('abort', () => resolve(), { once: true });
        });
      },
    },
  });
  const node: NodeServerHandle = await serveNode(server.fetch);
  const proxy = await FaultProxy.start(node.url);
  return {
    server,
    directUrl: node.url,
    proxy,
    lastRenewal: (taskId) => store.lastParentRenewal({ tenant: '', owner: '' }, taskId),
    turns,
    executionsOf: (messageId) => turns.filter((t) => t.message.messageId === messageId).length,
    close: async () => {
      await proxy.close();
      await closeNode(node);
      await Promise.race([server.close(), new Promise((r) => setTimeout(r, 2000))]);
    },
  };
}

/** Polls `check` until it holds (real time). */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A child server and a client of it built from its card, retrying briefly (the delegation tests' common setup). */
export async function startChildWithClient(): Promise<{ child: ChildServer; client: A2AClient }> {
  const child = await startChild();
  const card = await fetchAgentCard(cardUrlOf(child.directUrl));
  const client = A2AClient.fromCard(card, {
    retry: { maxAttempts: 3, backoff: { initialMs: 20, maxMs: 100 } },
  });
  return { child, client };
}
