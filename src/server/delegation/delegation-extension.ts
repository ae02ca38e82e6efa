/**
 * The delegation extension on a child server's card (ADR 0039). The wire names, the writer and the reader of the
 * limits are shared with the client in `src/delegation/delegation-wire.ts`.
 */
import type { AgentCapabilities, AgentExtension } from '../../protocol/agent-card.js';
import {
  DELEGATION_EXTENSION_URI,
  DELEGATION_METADATA_KEY,
  LEASE_RENEWAL_HEADER,
  MIN_LEASE_MS,
} from '../../delegation/delegation-wire.js';

export {
  DELEGATION_EXTENSION_URI,
  DELEGATION_METADATA_KEY,
  DelegationLimitsError,
  LEASE_RENEWAL_HEADER,
  MIN_LEASE_MS,
  readDelegationLimits as readChildLimits,
  type DelegationLimits as ChildLimits,
} from '../../delegation/delegation-wire.js';

/**
 * The capabilities with the delegation extension declared (unless already declared). Declare it only on a server
 * whose runner arms the limits of each turn (`armChildLimits`) and whose handler records the renewals its
 * GetTask calls carry (every `A2ARequestHandler` does): a card must not promise what the server does not do.
 */
export function advertiseDelegation(capabilities: AgentCapabilities): AgentCapabilities {
  const declared = capabilities.extensions ?? [];
  if (declared.some((e) => e.uri === DELEGATION_EXTENSION_URI)) return capabilities;
  const entry: AgentExtension = {
    uri: DELEGATION_EXTENSION_URI,
    description:
      `Delegation limits: metadata["${DELEGATION_METADATA_KEY}"] = { leaseMs, deadline, hop, chainId, ancestors }; ` +
      `a GetTask with the "${LEASE_RENEWAL_HEADER}" header renews the lease. A lapsed lease cancels the task; a ` +
      `passed deadline fails it; a hop past the server's depth limit is refused.`,
    required: false,
    params: { minLeaseMs: MIN_LEASE_MS },
  };
  return { ...capabilities, extensions: [...declared, entry] };
}
