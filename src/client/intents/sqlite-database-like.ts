/**
 * The subset of better-sqlite3's API the SQLite intent store uses: a structural interface, so the client never
 * imports the driver (ADR 0022). Pass `new Database(file)` yourself.
 */

/** A prepared statement: the part of better-sqlite3's `Statement` used here. */
export interface SqliteStatementLike {
  run(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** The part of better-sqlite3's `Database` used here. */
export interface SqliteDatabaseLike {
  exec(sql: string): unknown;
  prepare(sql: string): SqliteStatementLike;
}
