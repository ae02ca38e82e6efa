/**
 * An agent that delegates (docs/semantics.md §4 "Delegation", ADR 0040): the coordinator hands each request to a
 * researcher agent with `ctx.delegate`. The child's key is minted once and recorded as a durable step, so a retry
 * of the coordinator's turn (or a replica resuming it) reaches the same child task instead of starting a second
 * one. The child gets a lease: it cancels itself if the coordinator stops watching it.
 * Tested in test/examples/delegating-agent.test.ts.
 */
import { A2AClient } from 'a2a-once/client';
import { createA2AServer } from 'a2a-once/server';
import { serveNode } from 'a2a-once/server/node';

/** A running pair: the coordinator's URL (send here) and how many turns the researcher ran. */
export interface DelegationPair {
  readonly url: string;
  researcherTurns(): number;
  close(): Promise<void>;
}

/** Starts a researcher and a coordinator that delegates to it. */
export async function startDelegationPair(): Promise<DelegationPair> {
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
  const researcherHttp = await serveNode(researcher.fetch);
  const client = await A2AClient.fromCardUrl(researcherHttp.url);

  const coordinator = createA2AServer({
    card: { name: 'coordinator', description: 'Delegates research' },
    agent: {
      resumable: true,
      async execute(ctx) {
        const child = await ctx.delegate(client, ctx.userText, { leaseMs: 10_000 });
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
  const coordinatorHttp = await serveNode(coordinator.fetch);
  return {
    url: coordinatorHttp.url,
    researcherTurns: () => turns,
    close: async () => {
      await coordinatorHttp.close();
      await coordinator.close();
      await researcherHttp.close();
      await researcher.close();
    },
  };
}
