/**
 * The cards of the TCK agent. The A2A conformance kit (TCK) reads the public card for capabilities and, since
 * the card declares `extendedAgentCard`, fetches the extended card too (A2A §3.1.11, digest §5).
 */
import type { AgentCard, AgentSkill } from '../../protocol/agent-card.js';
import type { AgentCardInit } from '../../server/card.js';

const conformanceSkill: AgentSkill = {
  id: 'tck',
  name: 'TCK scenarios',
  description:
    "Behaves as the A2A conformance kit expects, chosen by the prefix of the user message's messageId.",
  tags: ['tck', 'conformance', 'test'],
  examples: ['messageId tck-complete-task-001', 'messageId tck-stream-artifact-chunked-001'],
};

/** The public card of the TCK agent: streaming, push notifications and an extended card. */
export const tckCard: AgentCardInit = {
  name: 'a2a-once TCK agent',
  description: 'The agent the A2A Technology Compatibility Kit (TCK) runs against.',
  version: '1.0.0',
  capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain', 'application/json'],
  skills: [conformanceSkill],
};

/**
 * The extended card: the public card plus a skill only authenticated callers see. A complete AgentCard (not
 * an init), because GetExtendedAgentCard returns it as it is; the server fills interfaces when it serves it.
 */
export const tckExtendedCard: AgentCard = {
  name: tckCard.name,
  description: tckCard.description,
  version: '1.0.0',
  supportedInterfaces: [],
  capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain', 'application/json'],
  skills: [
    conformanceSkill,
    {
      id: 'tck-extended',
      name: 'Extended TCK scenarios',
      description: 'Listed only on the extended card, so a client can tell the two cards apart.',
      tags: ['tck', 'extended'],
      examples: ['messageId tck-complete-task-extended'],
    },
  ],
};
