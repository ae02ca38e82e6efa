/**
 * Delegation (docs/semantics.md §4 "Delegation", ADR 0039, ADR 0040, ADR 0061): the parent side (`delegate`,
 * `settleChildren`, the handle), the child side (reading and enforcing the lease and budget a parent sent) and
 * the chain's depth limit.
 */
export { delegate, settleChildren, type DelegateOptions } from './delegate.js';
export { lazyPeer, PeerUnavailableError, type PeerSource } from './peer-source.js';
export {
  DelegationHandle,
  settledStatusOf,
  type DelegationOutcome,
  type DelegationStatus,
  type WatchOptions,
} from '../../delegation/index.js';
export type { DelegationPeer, PeerCallOptions } from '../../delegation/index.js';
export {
  advertiseDelegation,
  DELEGATION_EXTENSION_URI,
  DELEGATION_METADATA_KEY,
  DelegationLimitsError,
  LEASE_RENEWAL_HEADER,
  MIN_LEASE_MS,
  readChildLimits,
  type ChildLimits,
} from './delegation-extension.js';
export { armChildLimits, budgetExhaustedText, type ArmChildLimitsInput } from './child-limits.js';
export {
  chainIdFor,
  chainPositionOf,
  DEFAULT_DELEGATION_BUDGET_MS,
  DEFAULT_MAX_DELEGATION_DEPTH,
  DELEGATION_DEPTH_EXCEEDED,
  MAX_DELEGATION_DEPTH,
  type ChainPosition,
  type DelegationOptions,
  type DelegationSettings,
} from './delegation-chain.js';
