/**
 * The v0.3 form of an agent card (v0.3 `AgentCard`: one `url` with its `preferredTransport`, skills, the
 * capabilities with their extensions, so the idempotency extension is advertised to v0.3 peers too). Only the
 * JSON-RPC interface is written: it is the only v0.3 binding this server translates. Security schemes and
 * signatures are not translated yet (docs/guides/v03-peers.md, ADR 0098).
 */
import { BINDING_JSONRPC } from '../../protocol/constants.js';
import type { AgentCard } from '../../protocol/agent-card.js';

/** The protocol version a v0.3 card states. */
export const V03_PROTOCOL_VERSION = '0.3.0';

/** A v1.0 card as a v0.3 card. */
export function cardToV03(card: AgentCard): Record<string, unknown> {
  const jsonRpc = card.supportedInterfaces.find((i) => i.protocolBinding === BINDING_JSONRPC);
  const out: Record<string, unknown> = {
    protocolVersion: V03_PROTOCOL_VERSION,
    name: card.name,
    description: card.description,
    url: jsonRpc?.url ?? card.supportedInterfaces[0]?.url ?? '',
    preferredTransport: BINDING_JSONRPC,
    version: card.version,
    capabilities: {
      ...(card.capabilities.streaming === undefined ? {} : { streaming: card.capabilities.streaming }),
      ...(card.capabilities.pushNotifications === undefined
        ? {}
        : { pushNotifications: card.capabilities.pushNotifications }),
      ...(card.capabilities.extensions === undefined ? {} : { extensions: card.capabilities.extensions }),
    },
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map(({ securityRequirements: _s, ...skill }) => skill),
    supportsAuthenticatedExtendedCard: card.capabilities.extendedAgentCard === true,
  };
  if (card.provider !== undefined) out.provider = card.provider;
  if (card.documentationUrl !== undefined) out.documentationUrl = card.documentationUrl;
  if (card.iconUrl !== undefined) out.iconUrl = card.iconUrl;
  return out;
}
