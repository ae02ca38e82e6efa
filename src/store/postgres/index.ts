/**
 * `a2a-once/stores/postgres`: the store for replicas sharing one PostgreSQL. Pass a `pg.Pool` (an optional peer
 * dependency), your own pool with the same shape, or `pglitePool(new PGlite())`.
 */
export { PostgresTaskStore, type PostgresTaskStoreOptions } from './postgres-task-store.js';
export type { PgClientLike, PgPoolLike, PgQueryable, PgResultLike } from './pg-pool-like.js';
export { pglitePool, type PgliteLike } from './pglite-pool.js';
export { preparedPool } from './prepared-pool.js';
export type { Migration, MigrationReport } from '../sql/migration.js';
export { StoreError, type StoreErrorCode } from '../sql/store-error.js';
