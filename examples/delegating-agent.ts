/**
 * An agent that delegates (docs/semantics.md §4 "Delegation", ADR 0040): the coordinator hands each request to a
 * researcher agent with `ctx.delegate`. The child's key is minted once and recorded as a durable step, so a retry
 * of the coordinator's turn (or a replica resuming it) reaches the same child task instead of starting a second
 * one. The child gets a lease: it cancels itself if the coordinator stops watching it.
 *
 * The coordinator connects to the researcher lazily (`lazyPeer`, ADR 0083): it starts and serves even when the
 * researcher is not up yet, a turn that finds it away fails saying so, and the next turn connects.
 * Tested in test/examples/delegating-agent.test.ts.
 */
import { A2AClient } from 'a2a-once/client';
import { createA2AServer, lazyPeer } from 'a2a-once/server';
import { serveNode } from 'a2a-once/server/node';

/** A running agent: its URL and how to stop it. */
export interface RunningAgent {
  readonly url: string;
  close(): Promise<void>;
}

/** Starts a coordinator that delegates to the researcher at `researcherUrl`, which need not be up yet. */
export async function startCoordinator(researcherUrl: string): Promise<RunningAgent> {
  // Nothing is fetched here: the card is read on the first delegation, and again after a failed attempt.
  const researcher = lazyPeer(() => A2AClient.fromCardUrl(researcherUrl));
  const coordinator = createA2AServer({
    card: { name: 'coordinator', description: 'Delegates research' },
    agent: {
      resumable: true,
      async execute(ctx) {
        const child = await ctx.delegate(researcher, ctx.userText, { leaseMs: 10_000 });
        const outcome = await child.outcome();
        if (outcome.status !== 'completed') return ctx.fail(`research ${outcome.status}`);
        const notes = outcome.task?.artifacts?.[0]?.parts ?? [];
        await ctx.artifact({
          name: 'report',
          parts: [{ text: `report from child ${child.taskId}` }, ...notes],
        });
        await ctx.complete();
      },
    },
  });
  const http = await serveNode(coordinator.fetch);
  return {
    url: http.url,
    close: async () => {
      await http.close();
      await coordinator.close();
    },
  };
}

/** Starts the researcher on `port` (0: any free port); `turns()` counts the turns it ran. */
export async function startResearcher(port = 0): Promise<RunningAgent & { turns(): number }> {
  let turns = 0;
  const researcher = createA2AServer({
    card: { name: 'researcher', description: 'Looks things up' },
    agent: {
      async execute(ctx) {
        turns++;
        await ctx.artifact({ name: 'finding', parts: [{ text: `notes on ${ctx.userText}` }] });
        await ctx.complete();
      },
    },
  });
  const http = await serveNode(researcher.fetch, { port });
  return {
    url: http.url,
    turns: () => turns,
    close: async () => {
      await http.close();
      await researcher.close();
    },
  };
}
