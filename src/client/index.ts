/**
 * `a2a-once/client`: an A2A v1.0 client whose sends run once (SEMANTICS §7). Failures are classified (not
 * sent, refused up front, ambiguous); reads are retried; a keyed send is resent after an ambiguous failure only
 * to a peer that honours keys, and otherwise ends in `OutcomeUnknownError`; streams re-attach after a cut
 * without showing an update twice; optional durable intent survives the client's own restart.
 */
export { A2AClient } from './client.js';
export type { EndpointOptions } from './client.js';
export type { A2AClientOptions, CallOptions, Endpoint, MessageInput, SendOptions } from './options.js';
export { toMessage } from './options.js';
export { OutcomeUnknownError } from './outcome-unknown-error.js';
export type { OutcomeUnknownOptions } from './outcome-unknown-error.js';
export { TransportError, classifyFetchError } from './transport-error.js';
export type { FailureKind, TransportErrorCode, TransportErrorOptions } from './transport-error.js';
export { ClientError } from './client-error.js';
export type { ClientErrorCode } from './client-error.js';
export { failureKindOf, mayRetry } from './retry-policy.js';
export type { CallSafety, RetryOptions } from './retry-policy.js';
export { RetryBudget } from './retry-budget.js';
export type { RetryBudgetOptions } from './retry-budget.js';
export { DEFAULT_BACKOFF, backoffCeiling, backoffDelay, retryDelay } from './backoff.js';
export type { BackoffOptions } from './backoff.js';
export { parseRetryAfter } from './retry-after.js';
export { SseParser, SseEventTooLargeError, DEFAULT_MAX_EVENT_SIZE } from './sse-parser.js';
export type { SseEvent } from './sse-parser.js';
export { cardUrlOf, fetchAgentCard, honoursKeys } from './card-resolver.js';
export type { FetchCardOptions } from './card-resolver.js';
export { SUPPORTED_BINDINGS, isSupportedVersion, selectInterfaces } from './interface-selection.js';
export { StreamView } from './stream-view.js';
export { MemoryIntentStore } from './intent-store.js';
export type { IntentOutcome, IntentStore, SendIntent } from './intent-store.js';
export { SqliteIntentStore } from './sqlite-intent-store.js';
export type { SqliteDatabaseLike, SqliteStatementLike } from './sqlite-intent-store.js';
export type { RecoverOptions, RecoveryResult } from './recovery.js';
export type { FetchLike } from './http-exchange.js';
export { describeError, describeStreamEvent, describeTask } from './describe.js';
