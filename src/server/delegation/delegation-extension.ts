/**
 * The a2a-once delegation extension as a child server reads it (ADR 0039): the lease and the budget a parent put
 * in the message metadata, and the header its GetTask polls carry to renew the lease. The client writes the same
 * wire names in `src/client/delegation/` (client and server never import each other; a test checks they agree).
 */
import type { AgentCapabilities, AgentExtension } from '../../protocol/agent-card.js';
import type { Message } from '../../protocol/model.js';

/** The extension URI. */
export const DELEGATION_EXTENSION_URI = 'https://a2a-once.dev/extensions/delegation/v1';

/** The `Message.metadata` entry holding `{ leaseMs?, deadline? }`. */
export const DELEGATION_METADATA_KEY = 'a2a-once.dev/delegation';

/** The header of a GetTask that renews the lease of the task it reads. */
export const LEASE_RENEWAL_HEADER = 'a2a-once-delegation-renew';

/** Shortest lease honoured (the client refuses shorter ones too). */
export const MIN_LEASE_MS = 1_000;

/** What the parent asked of this child. */
export interface ChildLimits {
  readonly leaseMs?: number;
  /** Epoch ms. */
  readonly deadline?: number;
}

/** A delegation entry the server cannot honour; the child is refused work rather than run unbounded. */
export class DelegationLimitsError extends Error {
  override name = 'DelegationLimitsError';
  readonly code = 'DELEGATION_LIMITS_INVALID';
}

/**
 * The limits in `message`, or undefined when it carries none.
 * @throws DelegationLimitsError naming the bad field
 */
export function readChildLimits(message: Message): ChildLimits | undefined {
  const entry: unknown = message.metadata?.[DELEGATION_METADATA_KEY];
  if (entry === undefined) return undefined;
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw new DelegationLimitsError(`metadata["${DELEGATION_METADATA_KEY}"] must be an object`);
  }
  const { leaseMs, deadline } = entry as Record<string, unknown>;
  const out: { leaseMs?: number; deadline?: number } = {};
  if (leaseMs !== undefined) {
    if (typeof leaseMs !== 'number' || !Number.isSafeInteger(leaseMs) || leaseMs < MIN_LEASE_MS) {
      throw new DelegationLimitsError(
        `metadata["${DELEGATION_METADATA_KEY}"].leaseMs must be an integer of at least ${MIN_LEASE_MS}`,
      );
    }
    out.leaseMs = leaseMs;
  }
  if (deadline !== undefined) {
    const t = typeof deadline === 'string' ? Date.parse(deadline) : NaN;
    if (!Number.isFinite(t)) {
      throw new DelegationLimitsError(
        `metadata["${DELEGATION_METADATA_KEY}"].deadline must be an ISO 8601 time`,
      );
    }
    out.deadline = t;
  }
  return out;
}

/**
 * The capabilities with the delegation extension declared (unless already declared). Declare it only on a server
 * whose runner arms the limits of each turn (`armChildLimits`) and whose HTTP handler takes renewals
 * (`withLeaseRenewals`): a card must not promise what the server does not do.
 */
export function advertiseDelegation(capabilities: AgentCapabilities): AgentCapabilities {
  const declared = capabilities.extensions ?? [];
  if (declared.some((e) => e.uri === DELEGATION_EXTENSION_URI)) return capabilities;
  const entry: AgentExtension = {
    uri: DELEGATION_EXTENSION_URI,
    description:
      `Delegation limits: metadata["${DELEGATION_METADATA_KEY}"] = { leaseMs, deadline }; a GetTask with the ` +
      `"${LEASE_RENEWAL_HEADER}" header renews the lease. A lapsed lease cancels the task; a passed deadline fails it.`,
    required: false,
    params: { minLeaseMs: MIN_LEASE_MS },
  };
  return { ...capabilities, extensions: [...declared, entry] };
}
