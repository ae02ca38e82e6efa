/**
 * `a2a-once/stores/sqlite`: the embedded durable store (better-sqlite3, WAL), shareable by processes on one
 * machine. `better-sqlite3` is an optional peer dependency: install it to use this entry point.
 */
export { SqliteTaskStore, type SqliteTaskStoreOptions } from './sqlite-task-store.js';
export type { SqliteDatabaseLike } from './sqlite-database-like.js';
export { SQLITE_MIGRATIONS } from './sqlite-schema.js';
export type { Migration, MigrationReport } from '../sql/migration.js';
export { StoreError, type StoreErrorCode } from '../sql/store-error.js';
