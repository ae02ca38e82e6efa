/**
 * The cards of the TCK agent. The A2A conformance kit (TCK) reads the public card for capabilities and, since
 * the card declares `extendedAgentCard`, fetches the extended card too (A2A §3.1.11, digest §5).
 */
import type { AgentCapabilities, AgentCard, AgentSkill } from '../../protocol/agent-card.js';
import type { AgentCardInit } from '../../server/card.js';

const conformanceSkill: AgentSkill = {
  id: 'tck',
  name: 'TCK scenarios',
  description:
    "Behaves as the A2A conformance kit expects, chosen by the prefix of the user message's messageId.",
  tags: ['tck', 'conformance', 'test'],
  examples: ['messageId tck-complete-task-001', 'messageId tck-stream-artifact-chunked-001'],
};

/**
 * What the TCK cards declare. `pushNotifications` is true only when the server delivers push notifications: the
 * flag tells a client it will be called back, and a server that stores configs without delivering them would
 * break that promise silently. The caller that knows (`createTckAgent`'s option) decides; false by default.
 */
function tckCapabilities(pushNotifications: boolean): AgentCapabilities {
  return { streaming: true, pushNotifications, extendedAgentCard: true };
}

/** The public card of the TCK agent: streaming, an extended card, and push notifications only when delivered. */
export function tckPublicCard(pushNotifications: boolean): AgentCardInit {
  return {
    name: 'a2a-once TCK agent',
    description: 'The agent the A2A Technology Compatibility Kit (TCK) runs against.',
    version: '1.0.0',
    capabilities: tckCapabilities(pushNotifications),
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [conformanceSkill],
  };
}

/**
 * The extended card: the public card plus a skill only authenticated callers see. A complete AgentCard (not
 * an init), because GetExtendedAgentCard returns it as it is; the server fills interfaces when it serves it.
 */
export function tckExtendedCardOf(pushNotifications: boolean): AgentCard {
  const pub = tckPublicCard(pushNotifications);
  return {
    name: pub.name,
    description: pub.description,
    version: '1.0.0',
    supportedInterfaces: [],
    capabilities: tckCapabilities(pushNotifications),
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
}

/** The public card as served today: push delivery is not built, so the card does not declare it. */
export const tckCard: AgentCardInit = tckPublicCard(false);

/** The extended card as served today (no push notifications, as the public card). */
export const tckExtendedCard: AgentCard = tckExtendedCardOf(false);
