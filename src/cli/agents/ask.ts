/**
 * The ask agent: a two-turn conversation. The first message gets a question (INPUT_REQUIRED); the answer,
 * sent to the same task, completes it with an artifact that combines both. It exercises continuations
 * (A2A §3.3.3: INPUT_REQUIRED resumes on a new message with the same taskId).
 */
import type { Message } from '../../protocol/model.js';
import type { AgentContext, AgentExecutor } from '../../server/agent-executor.js';
import type { AgentCardInit } from '../../server/card.js';
import { textOf } from '../../server/runner/message-init.js';
import type { DemoAgent, DemoAgentOptions } from './demo-agent.js';

/** The question the first turn asks. */
export const ASK_QUESTION = 'What should I call the result?';

/** The ask agent's card. */
export const askCard: AgentCardInit = {
  name: 'a2a-once ask',
  description: 'Asks a follow-up question before answering.',
  version: '1.0.0',
  capabilities: { streaming: true },
  skills: [
    {
      id: 'ask',
      name: 'Ask then answer',
      description: 'Replies to a first message with a question, then combines the request and the answer.',
      tags: ['input-required', 'multi-turn', 'demo'],
      examples: ['write a haiku'],
    },
  ],
};

/** The artifact text of the second turn: the original request under the name the user chose. */
export function askResultText(request: string, name: string): string {
  return `${name}: ${request}`;
}

/** The first user message of a task: the request the question was about. */
function firstUserMessage(history: readonly Message[] | undefined): Message | undefined {
  return history?.find((m) => m.role === 'ROLE_USER');
}

/** Creates the ask agent. */
export function createAskAgent(options: DemoAgentOptions = {}): DemoAgent {
  const executor: AgentExecutor = {
    async execute(ctx: AgentContext): Promise<void> {
      options.effectsLog?.record(ctx);
      if (!ctx.isContinuation) {
        await ctx.requireInput(ASK_QUESTION);
        return;
      }
      const first = firstUserMessage(ctx.task.history);
      const request = first ? textOf(first) : '';
      await ctx.working();
      await ctx.artifact({ name: 'result', parts: [{ text: askResultText(request, ctx.userText) }] });
      await ctx.complete();
    },
  };
  return { executor, card: askCard };
}
