/**
 * `a2a-once/client`: an A2A v1.0 client whose sends run once (docs/semantics.md §7). Failures are classified (not
 * sent, refused up front, ambiguous); reads are retried; a keyed send is resent after an ambiguous failure only
 * to a peer that honours keys, and otherwise ends in `OutcomeUnknownError`; streams re-attach after a cut
 * without showing an update twice; optional durable intent survives the client's own restart; credentials (fixed,
 * a provider, OAuth 2 client credentials) are placed as the card says and refreshed once after a 401.
 */
export { A2AClient } from './client.js';
export type { CardCallOptions, EndpointOptions } from './client.js';
export type { A2AClientOptions } from './options.js';
export type { CallOptions, Endpoint } from './connection/call-options.js';
export type { MessageInput, SendOptions } from './sends/send-options.js';
export type { AdmissionOutcome } from '../protocol/constants.js';
export { toMessage } from './sends/send-options.js';
export { messageIdForKey } from './sends/message-id.js';
export { OutcomeUnknownError } from './sends/outcome-unknown-error.js';
export type { OutcomeUnknownOptions } from './sends/outcome-unknown-error.js';
export { TransportError, classifyFetchError } from './transport/transport-error.js';
export type { FailureKind, TransportErrorCode, TransportErrorOptions } from './transport/transport-error.js';
export { ClientError } from './connection/client-error.js';
export type { ClientErrorCode, ClientErrorDetails } from './connection/client-error.js';
export { DEFAULT_MAX_RESPONSE_BYTES } from './transport/bounded-body.js';
export { failureKindOf } from './transport/failure-kind.js';
export { mayRetry } from './retry/retry-policy.js';
export type { CallSafety, RetryOptions } from './retry/retry-policy.js';
export type { RetryEvent, RetryObserver } from './retry/retry-event.js';
export { RetryBudget } from './retry/retry-budget.js';
export type { RetryBudgetOptions } from './retry/retry-budget.js';
export { DEFAULT_BACKOFF, backoffCeiling, backoffDelay, retryDelay } from './retry/backoff.js';
export type { BackoffOptions } from './retry/backoff.js';
export { parseRetryAfter } from './transport/retry-after.js';
export { SseParser, SseEventTooLargeError, DEFAULT_MAX_EVENT_SIZE } from './transport/sse-parser.js';
export type { SseEvent } from './transport/sse-parser.js';
export {
  DEFAULT_CARD_REDIRECTS,
  cardUrlOf,
  fetchAgentCard,
  honoursKeys,
} from './connection/card-resolver.js';
export type { FetchCardOptions } from './connection/card-resolver.js';
export {
  SUPPORTED_BINDINGS,
  isSupportedVersion,
  selectInterfaces,
} from './connection/interface-selection.js';
export { StreamView } from './streams/stream-view.js';
export { eventSequenceOf } from './streams/event-sequence.js';
export { MemoryIntentStore } from './intents/intent-store.js';
export type { IntentOutcome, IntentStore, SendIntent } from './intents/intent-store.js';
export { intentIdentityOf } from './intents/intent-identity.js';
export type { IntentIdentity } from './intents/intent-identity.js';
export { SqliteIntentStore } from './intents/sqlite-intent-store.js';
export type { SqliteDatabaseLike, SqliteStatementLike } from './intents/sqlite-intent-store.js';
export type { RecoverOptions, RecoveryResult } from './sends/recovery.js';
export type { ClientLogger, LogFields } from './sends/client-logger.js';
export type {
  AttemptContext,
  AttemptSignal,
  FetchLike,
  RawStream,
  StreamOperation,
  Transport,
  TransportFactory,
  TransportTarget,
  UnaryOperation,
} from './transport/transport.js';
export type {
  Credential,
  CredentialProvider,
  CredentialRequest,
  CredentialsOption,
} from './credentials/credential.js';
export { oauth2ClientCredentials } from './credentials/oauth2-client-credentials.js';
export type { OAuth2ClientCredentialsOptions } from './credentials/oauth2-client-credentials.js';
export { describeError, describeStreamEvent, describeTask } from './describe.js';
export {
  Delegation,
  DelegationHandle,
  DELEGATION_EXTENSION_URI,
  withDelegationLimits,
} from './delegation/index.js';
export type {
  DelegationLimits,
  DelegationOptions,
  DelegationOutcome,
  DelegationPeer,
  DelegationStatus,
} from './delegation/index.js';
export { CardNotTrustedError } from './connection/card-trust.js';
export type { CardTrustOptions } from './connection/card-trust.js';
export {
  CardSignatureError,
  canonicalAgentCard,
  signAgentCard,
  verifyAgentCard,
  type CanonicalForm,
  type CardSignatureFailure,
  type CardTrust,
  type SignatureFailure,
  type TrustedKey,
  type VerifiedAgentCard,
} from '../card-signing/index.js';
