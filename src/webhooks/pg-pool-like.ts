/**
 * The subset of pg's `Pool` the PostgreSQL processed-set uses, as a structural interface: a `pg.Pool` fits as is,
 * and so does a pool of your own, or PGlite through `pglitePool` from `a2a-once/stores/postgres`. Nothing here
 * imports pg.
 */

/** A query result: only the rows are read. */
export interface PgResultLike {
  rows: Record<string, unknown>[];
}

/** Something that runs one parameterised statement. */
export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<PgResultLike>;
}

/** A connection checked out of the pool; a transaction runs on one. */
export interface PgClientLike extends PgQueryable {
  /** Returns the client to the pool; pass the error (or `true`) to discard a broken connection instead. */
  release(err?: Error | boolean): void;
}

/** The pool: one-off statements, and clients for transactions. */
export interface PgPoolLike extends PgQueryable {
  connect(): Promise<PgClientLike>;
  end?(): Promise<void>;
}
