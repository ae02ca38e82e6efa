/**
 * The echo agent: every message becomes a task that goes WORKING, gets one artifact `echo: <text>`, and
 * COMPLETES. The simplest agent that exercises the whole task lifecycle, streamed or blocking.
 */
import type { AgentContext, AgentExecutor } from '../../server/agent-executor.js';
import type { AgentCardInit } from '../../server/card.js';
import type { DemoAgent, DemoAgentOptions } from './demo-agent.js';

/** The echo agent's card. */
export const echoCard: AgentCardInit = {
  name: 'a2a-once echo',
  description: 'Echoes each message back as an artifact.',
  version: '1.0.0',
  capabilities: { streaming: true },
  skills: [
    {
      id: 'echo',
      name: 'Echo',
      description: 'Returns the text it was sent, prefixed with "echo: ".',
      tags: ['echo', 'demo'],
      examples: ['hello'],
    },
  ],
};

/** The text of the echo artifact for an input. */
export function echoText(input: string): string {
  return `echo: ${input}`;
}

/** Creates the echo agent. */
export function createEchoAgent(options: DemoAgentOptions = {}): DemoAgent {
  const executor: AgentExecutor = {
    async execute(ctx: AgentContext): Promise<void> {
      options.effectsLog?.record(ctx);
      await ctx.working();
      await ctx.artifact({ name: 'echo', parts: [{ text: echoText(ctx.userText) }] });
      await ctx.complete();
    },
  };
  return { executor, card: echoCard };
}
