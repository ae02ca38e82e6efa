/**
 * The TCK agent: the agent the A2A conformance kit (TCK) runs against. It branches on the prefix of the user
 * message's messageId (see `tck-scenarios.ts`); an unknown prefix completes with a greeting. A continuation is
 * routed the same way, so `tck-complete-task` sent to an INPUT_REQUIRED task completes it.
 */
import type { AgentContext, AgentExecutor } from '../../server/agent-executor.js';
import type { DemoAgent, DemoAgentOptions } from './demo-agent.js';
import { tckCard, tckExtendedCard, tckExtendedCardOf, tckPublicCard } from './tck-card.js';
import { tckScenarioFor } from './tck-scenarios.js';

export { tckCard, tckExtendedCard, tckExtendedCardOf, tckPublicCard } from './tck-card.js';
export {
  TCK_DELAY_MS,
  TCK_V03_RESUBSCRIBE_MS,
  TCK_FILE_TEXT,
  TCK_SCENARIOS,
  tckScenarioFor,
  type TckScenario,
} from './tck-scenarios.js';

/** The status message of the default scenario. */
export const TCK_DEFAULT_TEXT = 'Hello from TCK agent';

/**
 * Creates the TCK agent, with its extended card. Its cards declare push notifications only when
 * `options.pushNotifications` says the server delivers them (default: not).
 */
export function createTckAgent(options: DemoAgentOptions = {}): DemoAgent {
  const executor: AgentExecutor = {
    async execute(ctx: AgentContext): Promise<void> {
      options.effectsLog?.record(ctx);
      const scenario = tckScenarioFor(ctx.message.messageId);
      if (scenario) await scenario.run(ctx);
      else await ctx.complete(TCK_DEFAULT_TEXT);
    },
  };
  if (options.pushNotifications === true) {
    return { executor, card: tckPublicCard(true), extendedCard: tckExtendedCardOf(true) };
  }
  return { executor, card: tckCard, extendedCard: tckExtendedCard };
}
