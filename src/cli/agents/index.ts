/**
 * The built-in demo agents that `a2a-once serve --agent NAME` serves, and the effects log tests use to count
 * executions from outside the server.
 */
import { createAskAgent } from './ask.js';
import { createDelegatingAgent } from './delegating.js';
import type { DemoAgent, DemoAgentOptions } from './demo-agent.js';
import { createEchoAgent } from './echo.js';
import { createLedgerAgent } from './ledger.js';
import { createSlowAgent } from './slow.js';
import { createTckAgent } from './tck.js';
import { createTreeAgent } from './tree.js';

export { abortableSleep } from './abortable-sleep.js';
export { ASK_QUESTION, askCard, askResultText, createAskAgent } from './ask.js';
export type { DemoAgent, DemoAgentOptions } from './demo-agent.js';
export {
  createDelegatingAgent,
  DELEGATE_TO_ENV,
  delegatingCard,
  type DelegatingAgentOptions,
} from './delegating.js';
export { createEchoAgent, echoCard, echoText } from './echo.js';
export { countEffects, EffectsLog, readEffects, type EffectRecord } from './effects-log.js';
export {
  createLedgerAgent,
  LEDGER_POST_STEP,
  LEDGER_URL_ENV,
  ledgerCard,
  receiptText,
  type LedgerAgentOptions,
  type LedgerReceipt,
} from './ledger.js';
export { naiveSend, NAIVE_ATTEMPTS, plainMessage, type NaiveSendResult } from './naive-send.js';
export { createSlowAgent, progressText, SLOW_DEFAULT_DELAY_MS, SLOW_EFFECT_STEP, slowCard } from './slow.js';
export {
  createTckAgent,
  TCK_DEFAULT_TEXT,
  TCK_DELAY_MS,
  TCK_V03_RESUBSCRIBE_MS,
  TCK_FILE_TEXT,
  TCK_SCENARIOS,
  tckCard,
  tckExtendedCard,
  tckScenarioFor,
  type TckScenario,
} from './tck.js';

export {
  createTreeAgent,
  parseTreeChildren,
  parseTreeMode,
  TREE_CHILDREN_ENV,
  TREE_MODE_ENV,
  treeCard,
  type TreeAgentOptions,
  type TreeMode,
} from './tree.js';

/** The names `serve --agent` accepts. */
export const AGENT_NAMES = ['echo', 'tck', 'ask', 'slow', 'delegating', 'ledger', 'tree'] as const;

/** One of `AGENT_NAMES`. */
export type AgentName = (typeof AGENT_NAMES)[number];

/** Whether `name` is a built-in agent (for validating a command-line argument). */
export function isAgentName(name: string): name is AgentName {
  return (AGENT_NAMES as readonly string[]).includes(name);
}

/** Creates a built-in agent by name. */
export function createAgent(name: AgentName, options: DemoAgentOptions = {}): DemoAgent {
  switch (name) {
    case 'echo':
      return createEchoAgent(options);
    case 'tck':
      return createTckAgent(options);
    case 'ask':
      return createAskAgent(options);
    case 'slow':
      return createSlowAgent(options);
    case 'delegating':
      return createDelegatingAgent(options);
    case 'ledger':
      return createLedgerAgent(options);
    case 'tree':
      return createTreeAgent(options);
  }
}
