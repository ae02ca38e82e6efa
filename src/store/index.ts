/**
 * The store layer: the `TaskStore` contract and the in-memory backend. SQL backends live behind their own
 * subpath exports (`a2a-once/stores/sqlite`, `a2a-once/stores/postgres`) so their drivers stay optional.
 */
export * from './clock.js';
export * from './scope.js';
export * from './records.js';
export * from './task-store.js';
export type {
  StepAttemptInput,
  StepAttemptRecord,
  StepAttemptResult,
  StepAttemptState,
} from './step-attempts.js';
export * from './retention.js';
export * from './push-delivery.js';
export * from './page-token.js';
export * from './memory/index.js';
export { openStore, describeStoreUrl, type OpenStoreOptions, type OpenedStore } from './open-store.js';
export {
  DEFAULT_POSTGRES_LIMITS,
  postgresPoolConfig,
  type PostgresConnectionLimits,
  type PostgresPoolConfig,
} from './postgres/pg-connection-limits.js';
