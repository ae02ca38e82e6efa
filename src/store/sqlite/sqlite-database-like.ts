/**
 * What `SqliteTaskStoreOptions.database` must be, in the package's own words: the members of better-sqlite3's
 * `Database` the store calls. Structural, so the public types never import the driver's and resolve without
 * `@types/better-sqlite3` (ADR 0060); a better-sqlite3 `Database` is one (the SQLite tests pass theirs).
 */
export interface SqliteDatabaseLike {
  /** Compiles a statement. */
  prepare(source: string): unknown;
  /** Runs SQL text with no parameters (migrations). */
  exec(source: string): unknown;
  /** Reads or sets a pragma. */
  pragma(source: string, options?: { simple?: boolean }): unknown;
  /** Wraps a function in a transaction. */
  transaction(fn: (...args: never[]) => unknown): unknown;
  /** Closes the connection (only a database the store opened itself is ever closed by it). */
  close(): unknown;
  /** Whether the connection is open. */
  readonly open: boolean;
}
