/**
 * The subset of pg's `Pool` the PostgreSQL processed-set uses: the same structural interfaces as the PostgreSQL
 * task store's, so a `pg.Pool`, a pool of your own, or PGlite through `pglitePool` from `a2a-once/stores/postgres`
 * fits either. Nothing here imports pg.
 */
export type { PgClientLike, PgPoolLike, PgQueryable, PgResultLike } from '../store/postgres/pg-pool-like.js';
