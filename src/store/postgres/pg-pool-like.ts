/**
 * The subset of pg's `Pool` the PostgreSQL store uses, as a structural interface (ADR 0001; stores take
 * structural interfaces): a `pg.Pool` fits as is, and so does any pool of your own or the PGlite adapter
 * (`pglitePool`). Nothing here imports pg.
 */

/** A query result: only the rows are read. */
export interface PgResultLike {
  rows: Record<string, unknown>[];
}

/** Something that runs one parameterised statement. */
export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<PgResultLike>;
}

/** A connection checked out of the pool; transactions run on one client. */
export interface PgClientLike extends PgQueryable {
  /** Returns the client to the pool; pass the error (or `true`) to discard a broken connection instead. */
  release(err?: Error | boolean): void;
  /**
   * A connection that dies while checked out and between statements reports it as an `error` event; pg's pool
   * listens only to idle clients, so without a listener of ours the event would crash the process.
   */
  on?(event: 'error', listener: (err: Error) => void): unknown;
  removeListener?(event: 'error', listener: (err: Error) => void): unknown;
}

/** The pool: one-off statements, and clients for transactions. */
export interface PgPoolLike extends PgQueryable {
  connect(): Promise<PgClientLike>;
  /** Closes every connection; called by `close()` only when the store owns the pool. */
  end?(): Promise<void>;
}
