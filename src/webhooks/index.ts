/**
 * `a2a-once/webhooks`: receive a2a-once push notifications and apply each event exactly once, in order
 * (docs/semantics.md §5, "Receiver"; ADR 0046). The wire helpers are re-exported, so a test sender can sign
 * deliveries the way the server does.
 */
export { createWebhookReceiver } from './receiver.js';
export type { WebhookErrorContext, WebhookReceiver, WebhookReceiverOptions } from './receiver.js';
export { ApplyError } from './apply-in-order.js';
export type { ApplyFn, ApplyInfo } from './apply-in-order.js';
export { GapRepairError } from './task-source.js';
export type { TaskReader, TaskSource } from './task-source.js';
export { REFUSAL_STATUS, isRefusal, verdictResponse } from './verdict.js';
export type {
  AcceptedBody,
  AcceptedVerdict,
  RefusalBody,
  RefusalVerdict,
  WebhookOutcome,
  WebhookRefusalReason,
  WebhookVerdict,
} from './verdict.js';
export type { HeadersInput } from './header-read.js';
export { nodeWebhookListener } from './node-listener.js';
export type { NodeWebhookRequest, NodeWebhookResponse } from './node-listener.js';
export { WebhookConfigError } from './processed-set.js';
export type { EntryDecision, LockedEntry, ProcessedSet } from './processed-set.js';
export { MemoryProcessedSet } from './memory-processed-set.js';
export { SqliteProcessedSet } from './sqlite-processed-set.js';
export type {
  SqliteDatabaseLike,
  SqliteProcessedSetOptions,
  SqliteStatementLike,
} from './sqlite-processed-set.js';
export { PostgresProcessedSet } from './postgres-processed-set.js';
export type { PostgresProcessedSetOptions } from './postgres-processed-set.js';
export type { PgClientLike, PgPoolLike, PgQueryable, PgResultLike } from './pg-pool-like.js';
export {
  DEFAULT_TIMESTAMP_TOLERANCE_S,
  NOTIFICATION_TOKEN_HEADER,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SEQUENCE_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  WebhookSecretError,
  parseWebhookId,
  parseWebhookSecret,
  signWebhook,
  webhookId,
  webhookSignatureMatches,
} from '../webhook-wire/index.js';
