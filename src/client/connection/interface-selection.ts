/**
 * Choosing how to reach an agent from its card (A2A §8.3.2, A2A v1.0): walk `supportedInterfaces` (ordered by
 * the agent's preference) and keep those whose binding we speak and whose protocol version has major 1; a
 * caller's binding preference reorders them, ties kept in card order. The rest of the list is the fallback the
 * client moves to when an interface cannot be reached (a "not sent" failure is always safe to move on from).
 * Each entry keeps its own tenant, echoed exactly in every request (A2A v1.0).
 */
import type { AgentCard, AgentInterface } from '../../protocol/agent-card.js';
import { BINDING_HTTP_JSON, BINDING_JSONRPC } from '../../protocol/constants.js';
import { ClientError } from './client-error.js';

/** The bindings this client speaks. */
export const SUPPORTED_BINDINGS: readonly string[] = [BINDING_JSONRPC, BINDING_HTTP_JSON];

/** Whether a `Major.Minor` version is one we speak (major 1; A2A v1.0: patch numbers never matter). */
export function isSupportedVersion(version: string | undefined): boolean {
  if (version === undefined || version === '') return false;
  const major = /^(\d+)(?:\.\d+)*$/.exec(version.trim())?.[1];
  return major === '1';
}

/**
 * The usable interfaces in the order to try them, their URLs resolved against `base` (the card's URL).
 *
 * @throws {ClientError} `NO_USABLE_INTERFACE` when none is usable: the client never falls back to a v0.3
 * interface, since its semantics differ (A2A §3.6.3: pin the version rather than silently fall back).
 */
export function selectInterfaces(
  card: AgentCard,
  preferredBindings: readonly string[] = SUPPORTED_BINDINGS,
  base?: string,
): AgentInterface[] {
  const usable = (card.supportedInterfaces ?? []).filter(
    (i) => SUPPORTED_BINDINGS.includes(i.protocolBinding) && isSupportedVersion(i.protocolVersion),
  );
  const rank = (i: AgentInterface): number => {
    const r = preferredBindings.indexOf(i.protocolBinding);
    return r === -1 ? preferredBindings.length : r;
  };
  const ordered = usable
    .map((i, index) => ({ i, index }))
    .sort((a, b) => rank(a.i) - rank(b.i) || a.index - b.index)
    .map(({ i }) => (base === undefined ? i : { ...i, url: new URL(i.url, base).toString() }));
  if (ordered.length === 0) {
    const seen = (card.supportedInterfaces ?? [])
      .map((i) => `${i.protocolBinding} ${i.protocolVersion}`)
      .join(', ');
    throw new ClientError(
      'NO_USABLE_INTERFACE',
      `no JSONRPC or HTTP+JSON interface of version 1.x (card offers: ${seen || 'none'})`,
    );
  }
  return ordered;
}
