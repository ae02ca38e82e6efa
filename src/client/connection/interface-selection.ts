/**
 * Choosing how to reach an agent from its card (A2A §8.3.2, A2A v1.0): walk `supportedInterfaces` (ordered by
 * the agent's preference) and keep those whose binding we speak and whose protocol version has major 1; a
 * caller's binding preference reorders them, ties kept in card order. The rest of the list is the fallback the
 * client moves to when an interface cannot be reached (a "not sent" failure is always safe to move on from).
 * Each entry keeps its own tenant, echoed exactly in every request (A2A v1.0).
 *
 * A v0.3 agent (ADR 0102): only when no 1.x interface is usable, the card's JSON-RPC interfaces at a version
 * from 0.3 to below 1.0 are used instead, spoken in v0.3 (`v03/v03-dialect.ts`, ADR 0103). The two are never
 * mixed in one list: a call that starts on a 1.x interface never falls back to 0.3 (A2A §3.6.3: pin the version
 * rather than silently fall back), and a v0.3 card (`url` + `protocolVersion`) reads as a card whose interfaces
 * are all 0.x (`protocol/v03/card.ts`). A 0.x interface with a tenant is not usable: v0.3 cannot carry one.
 *
 * Bindings of transport factories (`GRPC` with `a2a-once/client/grpc`, ADR 0110) are usable at 1.x too. Without a
 * caller's preference they rank after JSON-RPC and HTTP+JSON, in the order the factories were given; their URLs
 * are not resolved against the card's (a gRPC URL is `host:port`, which is no relative URL).
 */
import type { AgentCard, AgentInterface } from '../../protocol/agent-card.js';
import { BINDING_HTTP_JSON, BINDING_JSONRPC } from '../../protocol/constants.js';
import { ClientError } from './client-error.js';

/** The bindings this client speaks. */
export const SUPPORTED_BINDINGS: readonly string[] = [BINDING_JSONRPC, BINDING_HTTP_JSON];

/** The bindings this client speaks to a v0.3 agent. */
export const V03_BINDINGS: readonly string[] = [BINDING_JSONRPC];

function majorMinorOf(version: string | undefined): [number, number] | undefined {
  if (version === undefined) return undefined;
  const m = /^(\d+)(?:\.(\d+))*$/.exec(version.trim());
  if (m === null) return undefined;
  const minor = /^\d+\.(\d+)/.exec(version.trim())?.[1];
  return [Number(m[1]), Number(minor ?? '0')];
}

/** Whether a `Major.Minor` version is one we speak (major 1; A2A v1.0: patch numbers never matter). */
export function isSupportedVersion(version: string | undefined): boolean {
  return majorMinorOf(version)?.[0] === 1;
}

/** Whether a version is spoken as v0.3: from 0.3 to below 1.0 (as `@a2a-js/sdk` reads "legacy"). */
export function isV03Version(version: string | undefined): boolean {
  const v = majorMinorOf(version);
  return v !== undefined && v[0] === 0 && v[1] >= 3;
}

function isUsableV03(i: AgentInterface): boolean {
  return V03_BINDINGS.includes(i.protocolBinding) && isV03Version(i.protocolVersion) && !i.tenant;
}

/**
 * The usable interfaces in the order to try them, their URLs resolved against `base` (the card's URL): the 1.x
 * ones when there are any, else the v0.3 JSON-RPC ones.
 *
 * @throws {ClientError} `NO_USABLE_INTERFACE` when neither is usable, naming what the card offers.
 */
export function selectInterfaces(
  card: AgentCard,
  preferredBindings?: readonly string[],
  base?: string,
  extraBindings: readonly string[] = [],
): AgentInterface[] {
  const offered = card.supportedInterfaces ?? [];
  const spoken = [...SUPPORTED_BINDINGS, ...extraBindings.filter((b) => !SUPPORTED_BINDINGS.includes(b))];
  const preferred = preferredBindings ?? spoken;
  const v1 = offered.filter(
    (i) => spoken.includes(i.protocolBinding) && isSupportedVersion(i.protocolVersion),
  );
  const usable = v1.length > 0 ? v1 : offered.filter(isUsableV03);
  const rank = (i: AgentInterface): number => {
    const r = preferred.indexOf(i.protocolBinding);
    return r === -1 ? preferred.length : r;
  };
  const resolve = (i: AgentInterface): AgentInterface =>
    base === undefined || !SUPPORTED_BINDINGS.includes(i.protocolBinding)
      ? i
      : { ...i, url: new URL(i.url, base).toString() };
  const ordered = usable
    .map((i, index) => ({ i, index }))
    .sort((a, b) => rank(a.i) - rank(b.i) || a.index - b.index)
    .map(({ i }) => resolve(i));
  if (ordered.length === 0) {
    const seen = offered.map((i) => `${i.protocolBinding} ${i.protocolVersion}`).join(', ');
    throw new ClientError(
      'NO_USABLE_INTERFACE',
      `no ${spoken.join(' or ')} interface of version 1.x, nor a JSONRPC interface of version 0.3 without a tenant (card offers: ${seen || 'none'})`,
    );
  }
  return ordered;
}
