/**
 * The v0.3 forms of an agent card (ADR 0099). `cardToV03` writes the v0.3 JSON card (the v0.3.0 JSON schema):
 * one `url` with its `preferredTransport`, the other v0.3 interfaces in `additionalInterfaces`, the capabilities
 * with their extensions (so the idempotency extension is advertised to v0.3 peers), the security schemes and
 * requirements in v0.3 form, on the card and on each skill. `cardToV03Proto` writes the v0.3 proto-JSON card that
 * the v0.3 HTTP+JSON binding answers on `GET /v1/card`: the same fields, with schemes and requirements in the
 * proto's form (which v1.0 kept). Neither carries the v1.0 card's signatures, which cover the v1.0 card: a
 * signing server signs each v0.3 card as served (`CardSigner.signServed`).
 */
import { BINDING_HTTP_JSON, BINDING_JSONRPC, PROTOCOL_VERSION } from '../../protocol/constants.js';
import type { AgentCard, AgentInterface, AgentSkill } from '../../protocol/agent-card.js';
import { securitySchemesToV03, securityToV03 } from './v03-security.js';

/** The protocol version a v0.3 card states. */
export const V03_PROTOCOL_VERSION = '0.3.0';

/** The `protocolVersion` of the v0.3 entries in a v1.0 card's `supportedInterfaces`. */
export const V03_INTERFACE_VERSION = '0.3';

const V03_BINDINGS = new Set([BINDING_JSONRPC, BINDING_HTTP_JSON]);

function isV03(i: AgentInterface): boolean {
  return i.protocolVersion.startsWith('0.3');
}

/**
 * The card's interfaces with a v0.3 copy of each v1.0 JSON-RPC and HTTP+JSON interface (same URL and tenant,
 * `protocolVersion: "0.3"`), after all the v1.0 ones: a v1.0 client that takes the first interface of a binding
 * gets the v1.0 one (ADR 0099). A card that already lists a v0.3 interface is left as written.
 */
export function withV03Interfaces(card: AgentCard): AgentCard {
  if (card.supportedInterfaces.some(isV03)) return card;
  const copies = card.supportedInterfaces
    .filter((i) => V03_BINDINGS.has(i.protocolBinding) && i.protocolVersion === PROTOCOL_VERSION)
    .map((i) => ({ ...i, protocolVersion: V03_INTERFACE_VERSION }));
  return copies.length === 0
    ? card
    : { ...card, supportedInterfaces: [...card.supportedInterfaces, ...copies] };
}

/** The v0.3 interfaces of a card, JSON-RPC first; the v1.0 ones when it lists none (the same URLs serve both). */
function v03Interfaces(card: AgentCard): { url: string; transport: string }[] {
  const listed = card.supportedInterfaces.filter(isV03);
  const pool = (listed.length > 0 ? listed : card.supportedInterfaces).filter((i) =>
    V03_BINDINGS.has(i.protocolBinding),
  );
  const ordered = [
    ...pool.filter((i) => i.protocolBinding === BINDING_JSONRPC),
    ...pool.filter((i) => i.protocolBinding !== BINDING_JSONRPC),
  ];
  return ordered.map((i) => ({ url: i.url, transport: i.protocolBinding }));
}

type Form = 'json' | 'proto';

function skillToV03({ securityRequirements, ...skill }: AgentSkill, form: Form): Record<string, unknown> {
  const out: Record<string, unknown> = { ...skill };
  if (securityRequirements !== undefined && securityRequirements.length > 0)
    out.security = form === 'json' ? securityToV03(securityRequirements) : securityRequirements;
  return out;
}

function build(card: AgentCard, form: Form): Record<string, unknown> {
  const interfaces = v03Interfaces(card);
  const primary = interfaces[0];
  const out: Record<string, unknown> = {
    protocolVersion: V03_PROTOCOL_VERSION,
    name: card.name,
    description: card.description,
    url: primary?.url ?? '',
    preferredTransport: primary?.transport ?? BINDING_JSONRPC,
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
    skills: card.skills.map((s) => skillToV03(s, form)),
    supportsAuthenticatedExtendedCard: card.capabilities.extendedAgentCard === true,
  };
  if (interfaces.length > 0) out.additionalInterfaces = interfaces;
  if (card.provider !== undefined) out.provider = card.provider;
  if (card.documentationUrl !== undefined) out.documentationUrl = card.documentationUrl;
  if (card.iconUrl !== undefined) out.iconUrl = card.iconUrl;
  if (card.securitySchemes !== undefined && Object.keys(card.securitySchemes).length > 0)
    out.securitySchemes = form === 'json' ? securitySchemesToV03(card.securitySchemes) : card.securitySchemes;
  if (card.securityRequirements !== undefined && card.securityRequirements.length > 0)
    out.security = form === 'json' ? securityToV03(card.securityRequirements) : card.securityRequirements;
  return out;
}

/** Options of `cardToV03`. */
export interface V03CardOptions {
  /**
   * Also write the v1.0 `supportedInterfaces` (v0.3 has no such field; v0.3 readers ignore it), so a v1.0 client
   * that fetched the card without `A2A-Version` still finds its interfaces, as `@a2a-js/sdk` does.
   */
  readonly embedV1Interfaces?: boolean;
}

/** A v1.0 card as a v0.3 JSON card. */
export function cardToV03(card: AgentCard, options: V03CardOptions = {}): Record<string, unknown> {
  const out = build(card, 'json');
  if (options.embedV1Interfaces === true && card.supportedInterfaces.length > 0)
    out.supportedInterfaces = card.supportedInterfaces.map((i) => ({ ...i }));
  return out;
}

/** A v1.0 card as the v0.3 proto-JSON card (`GET /v1/card` of the v0.3 HTTP+JSON binding). */
export function cardToV03Proto(card: AgentCard): Record<string, unknown> {
  return build(card, 'proto');
}
