/**
 * What a delegating parent and a child server share (ADR 0039, ADR 0040): the extension's wire form and the
 * handle of a delegated child, below both the client and the server so neither spells them twice (ADR 0001).
 */
export {
  DELEGATION_EXTENSION_URI,
  DELEGATION_METADATA_KEY,
  DelegationLimitsError,
  LEASE_RENEWAL_HEADER,
  MIN_LEASE_MS,
  readDelegationLimits,
  withDelegationLimits,
  type DelegationLimits,
} from './delegation-wire.js';
export {
  DelegationHandle,
  settledStatusOf,
  type BeforeSettle,
  type DelegationOutcome,
  type DelegationStatus,
  type WatchOptions,
} from './delegation-handle.js';
export type { DelegationPeer, PeerCallOptions } from './delegation-peer.js';
