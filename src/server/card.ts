/**
 * The agent card a server publishes. The idempotency extension is advertised exactly when the configured store
 * can honour keys, derived from the store rather than configured by hand, so card and behaviour cannot drift
 * (a2a-rust's idempotency docs, "Knowing whether a server honours it"). An operator's own entry for the URI is kept as written.
 * `pushNotifications` is derived the same way, from whether the server delivers push notifications (ADR 0057).
 */
import { advertiseDelegation } from './delegation/delegation-extension.js';
import { IDEMPOTENCY_EXTENSION_URI } from '../idempotency/index.js';
import type {
  AgentCapabilities,
  AgentCard,
  AgentExtension,
  AgentInterface,
  AgentSkill,
} from '../protocol/agent-card.js';
import { BINDING_HTTP_JSON, BINDING_JSONRPC, PROTOCOL_VERSION } from '../protocol/constants.js';

/** What a host says about its agent; the rest of the card is derived. */
export interface AgentCardInit extends Partial<Omit<AgentCard, 'capabilities'>> {
  name: string;
  description: string;
  capabilities?: AgentCapabilities;
}

/** Adds the idempotency extension when the store honours keys (unless the operator declared it already). */
export function advertiseIdempotency(
  capabilities: AgentCapabilities,
  storeHonoursKeys: boolean,
  keyTtlMs: number,
): AgentCapabilities {
  const declared = capabilities.extensions ?? [];
  if (!storeHonoursKeys || declared.some((e) => e.uri === IDEMPOTENCY_EXTENSION_URI)) return capabilities;
  const entry: AgentExtension = {
    uri: IDEMPOTENCY_EXTENSION_URI,
    description:
      'Idempotent sends: a message carrying a key in metadata["a2a-rust.com/idempotency-key"] runs once; retries replay its task.',
    required: false,
    params: { keyTtlSeconds: Math.floor(keyTtlMs / 1000) },
  };
  return { ...capabilities, extensions: [...declared, entry] };
}

/**
 * Whether a server delivers push notifications (ADR 0057): it does, unless the host turns push off, with the
 * server option `push: false` or a card that says `pushNotifications: false`.
 */
export function deliversPush(declared: boolean | undefined, push: unknown): boolean {
  return push !== false && declared !== false;
}

/** `capabilities` saying `pushNotifications: delivers`: the card states what the server does (ADR 0057). */
export function advertisePush(capabilities: AgentCapabilities, delivers: boolean): AgentCapabilities {
  return capabilities.pushNotifications === delivers
    ? capabilities
    : { ...capabilities, pushNotifications: delivers };
}

/**
 * The card as served: defaults filled in, the extensions advertised, `pushNotifications` saying whether the
 * server delivers (`delivers`; when not given, as the host wrote it). Interfaces are filled per origin later.
 */
export function buildAgentCard(
  init: AgentCardInit,
  storeHonoursKeys: boolean,
  keyTtlMs: number,
  delivers?: boolean,
): AgentCard {
  const skills: AgentSkill[] = init.skills ?? [];
  return {
    ...init,
    name: init.name,
    description: init.description,
    version: init.version ?? '1.0.0',
    supportedInterfaces: init.supportedInterfaces ?? [],
    // Every a2a-once server enforces a delegating parent's lease and budget on its turns (ADR 0039).
    capabilities: advertiseDelegation(
      advertiseIdempotency(
        delivers === undefined ? (init.capabilities ?? {}) : advertisePush(init.capabilities ?? {}, delivers),
        storeHonoursKeys,
        keyTtlMs,
      ),
    ),
    defaultInputModes: init.defaultInputModes ?? ['text/plain'],
    defaultOutputModes: init.defaultOutputModes ?? ['text/plain'],
    skills,
  };
}

/** The JSON-RPC and HTTP+JSON interfaces at a base URL (JSON-RPC first: it is the one every peer speaks). */
export function defaultInterfaces(baseUrl: string, tenant?: string): AgentInterface[] {
  const base = baseUrl.replace(/\/+$/, '');
  const t = tenant ? { tenant } : {};
  return [
    { url: `${base}/`, protocolBinding: BINDING_JSONRPC, protocolVersion: PROTOCOL_VERSION, ...t },
    { url: base, protocolBinding: BINDING_HTTP_JSON, protocolVersion: PROTOCOL_VERSION, ...t },
  ];
}

/** Extensions declared `required: true` on a card. */
export function requiredExtensions(card: AgentCard): string[] {
  return (card.capabilities.extensions ?? []).filter((e) => e.required === true).map((e) => e.uri);
}

/**
 * The card with default interfaces at `baseUrl` when it declares none (cards are served per origin), and the
 * host's gRPC interface after them when it serves one (docs/guides/grpc.md).
 */
export function withInterfaces(
  card: AgentCard,
  baseUrl: string,
  grpc?: { url: string; tenant?: string },
): AgentCard {
  if (card.supportedInterfaces.length > 0) return card;
  const defaults = defaultInterfaces(baseUrl);
  if (grpc !== undefined) defaults.push(grpcInterfaceOf(grpc));
  return { ...card, supportedInterfaces: defaults };
}

/** A gRPC entry of `supportedInterfaces`: `host:port`, binding GRPC, version 1.0 (A2A §10). */
export function grpcInterfaceOf(grpc: { url: string; tenant?: string }): AgentInterface {
  const i: AgentInterface = { url: grpc.url, protocolBinding: 'GRPC', protocolVersion: PROTOCOL_VERSION };
  if (grpc.tenant !== undefined) i.tenant = grpc.tenant;
  return i;
}
