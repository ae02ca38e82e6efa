/**
 * `a2a-once/server`: the request handler, the agent API, the HTTP surface, and observability seams.
 */
export { A2ARequestHandler } from './a2a-request-handler.js';
export { createA2AServer, type A2AServer } from './create-server.js';
export type { ResumeOptions, ResumeResult, ResumeTarget } from './task-resume.js';
export type { A2AServerOptions, ResolvedServerOptions } from './options.js';
export type { RequestHandler } from './request-handler.js';
export { localCallContext, type CallContext } from './call-context.js';
export {
  StaleWriterError,
  StepError,
  TaskFinishedError,
  type FinishedTaskWrite,
  type StepErrorCode,
  type AgentContext,
  type AgentExecutor,
  type ArtifactChunkOptions,
  type ArtifactInit,
  type StatusMessageInit,
} from './agent-executor.js';
export { StoreWriteError } from './runner/write-retry.js';
export {
  StepInterruptedError,
  StepTimeoutError,
  type StepAttempt,
  type StepOptions,
  type StepRetryPolicy,
  type StepSemantics,
} from './step-options.js';
export {
  AGENT_ERROR_METADATA_KEY,
  type AgentErrorInfo,
  type AgentErrorMessage,
} from './runner/agent-failure.js';
export {
  advertiseDelegation,
  armChildLimits,
  delegate,
  DelegationHandle,
  DelegationLimitsError,
  DEFAULT_DELEGATION_BUDGET_MS,
  DEFAULT_MAX_DELEGATION_DEPTH,
  DELEGATION_DEPTH_EXCEEDED,
  settleChildren,
  type DelegateOptions,
  type DelegationOptions,
  type DelegationOutcome,
  type DelegationPeer,
  lazyPeer,
  PeerUnavailableError,
  type PeerSource,
} from './delegation/index.js';
export { DEFAULT_LEASE_MS } from './runner/turn-lease.js';
export { DEFAULT_MAX_STEP_RESULT_BYTES, MAX_STEP_NAME_LENGTH } from './runner/durable-step.js';
export { RecoverySchedule, type RecoveryOptions } from './recovery/recovery-schedule.js';
export { TaskRecovery, type RecoveryReport } from './recovery/task-recovery.js';
export { RECOVERY_METADATA_KEY } from './recovery/lost-turn.js';
export { advertiseIdempotency, buildAgentCard, defaultInterfaces, type AgentCardInit } from './card.js';
export { createFetchHandler, type FetchHandler } from './http/fetch-handler.js';
export type { HttpOptions } from './http/http-options.js';
export {
  anyOf,
  apiKeys,
  bearerTokens,
  DEFAULT_JWT_ALGORITHMS,
  isAuthenticator,
  jwtBearer,
  secureCard,
  tokenPrincipalName,
  type ApiKeysOptions,
  type AuthenticateHook,
  type Authenticator,
  type BearerTokensOptions,
  type Identity,
  type JwtBearerOptions,
  type Recognition,
  type TenantGrant,
  type TokenGrant,
} from './auth/index.js';
export {
  RETENTION_ROLE,
  RetentionSchedule,
  type ResolvedRetentionSchedule,
  type RetentionScheduleOptions,
} from './retention/retention-schedule.js';
export { jsonLineLogger, silentLogger, type LogFields, type ServerLogger } from './observability/logger.js';
export {
  ADMISSION_COUNTER,
  InMemoryMetrics,
  noopMetrics,
  type AdmissionOutcome,
  type ServerMetrics,
} from './observability/metrics.js';
export {
  METRIC,
  OUTCOME_ATTR,
  type MetricDefinition,
  type MetricKind,
} from './observability/metric-names.js';
export { CardSigner, DEFAULT_JWKS_PATH, type CardSigningOptions } from './card-signer.js';
export {
  CARD_SIGNING_ALGORITHMS,
  CardSigningKeyError,
  canonicalAgentCard,
  signAgentCard,
  type CanonicalForm,
  type CardSigningKey,
  type CardSigningKeyErrorCode,
  type SignAgentCardOptions,
} from '../card-signing/index.js';
