/** Delegation for code that is not an agent (ADR 0040): start a child, keyed once, and watch it. */
export { Delegation, type DelegationOptions } from './delegation.js';
export {
  DelegationHandle,
  settledStatusOf,
  type DelegationOutcome,
  type DelegationStatus,
  type WatchOptions,
} from '../../delegation/index.js';
export type { DelegationPeer } from '../../delegation/index.js';
export {
  DELEGATION_EXTENSION_URI,
  DELEGATION_METADATA_KEY,
  LEASE_RENEWAL_HEADER,
  MIN_LEASE_MS,
  withDelegationLimits,
  type DelegationLimits,
} from '../../delegation/index.js';
