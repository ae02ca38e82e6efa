/**
 * A real a2a-once child agent for the delegation tests, listening on 127.0.0.1 behind a fault proxy. Its agent
 * counts executions per message (in this process: the child runs here), completes "quick" work at once, asks
 * back on "ask" work (INPUT_REQUIRED) and holds "hold" work until cancelled. Every turn arms the delegation limits of its message the way a runner
 * would (`armChildLimits`): a passed budget fails the task with the budget message, a lapsed lease cancels it.
 */
import type { AgentContext } from '../../../src/server/agent-executor.js';
import { localCallContext } from '../../../src/server/call-context.js';
import { createA2AServer, type A2AServer } from '../../../src/server/create-server.js';
import {
  advertiseDelegation,
  armChildLimits,
  LeaseRenewals,
  withLeaseRenewals,
} from '../../../src/server/delegation/index.js';
import { serveNode, type NodeServerHandle } from '../../../src/server/node/index.js';
import { FaultProxy } from '../../client/harness/fault-proxy.js';

/** A running child. */
export interface ChildServer {
  readonly server: A2AServer;
  /** The child's own URL (no faults). */
  readonly directUrl: string;
  /** The fault proxy in front of it: give parents this URL. */
  readonly proxy: FaultProxy;
  readonly renewals: LeaseRenewals;
  /** Every turn the agent ran, in order. */
  readonly turns: AgentContext[];
  /** How many turns ran for `messageId`. */
  executionsOf(messageId: string): number;
  close(): Promise<void>;
}

/** Starts a child: `honoursKeys: false` gives it no store key support advertised on its card. */
export async function startChild(options: { checkEveryMs?: number } = {}): Promise<ChildServer> {
  const renewals = new LeaseRenewals();
  const turns: AgentContext[] = [];
  const holder: { server?: A2AServer } = {};
  const server = createA2AServer({
    card: {
      name: 'child',
      description: 'delegation test child',
      capabilities: advertiseDelegation({ streaming: true }),
    },
    retention: false,
    agent: {
      async execute(ctx) {
        turns.push(ctx);
        const stop = new AbortController();
        const onAbort = () => stop.abort();
        ctx.signal.addEventListener('abort', onAbort, { once: true });
        const disarm = armChildLimits({
          message: ctx.message,
          tenant: ctx.tenant,
          taskId: ctx.taskId,
          renewals,
          checkEveryMs: options.checkEveryMs ?? 20,
          onBudgetExhausted: async (text) => {
            await ctx.fail(text);
            stop.abort();
          },
          onLeaseLapsed: async () => {
            await holder.server!.handler.cancelTask({ id: ctx.taskId }, localCallContext());
            stop.abort();
          },
        });
        try {
          if (ctx.userText.startsWith('ask')) {
            await ctx.requireInput('which region?');
            return;
          }
          if (ctx.userText.startsWith('quick')) {
            await ctx.artifact({ artifactId: 'out', parts: [{ text: `done: ${ctx.userText}` }] });
            return;
          }
          await ctx.working('holding');
          await new Promise<void>((resolve) => {
            if (stop.signal.aborted) resolve();
            stop.signal.addEventListener('abort', () => resolve(), { once: true });
          });
        } finally {
          disarm();
          ctx.signal.removeEventListener('abort', onAbort);
        }
      },
    },
  });
  holder.server = server;
  const node: NodeServerHandle = await serveNode(withLeaseRenewals(server.fetch, renewals));
  const proxy = await FaultProxy.start(node.url);
  return {
    server,
    directUrl: node.url,
    proxy,
    renewals,
    turns,
    executionsOf: (messageId) => turns.filter((t) => t.message.messageId === messageId).length,
    close: async () => {
      await proxy.close();
      await node.close();
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
