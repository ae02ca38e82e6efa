/**
 * Local (not wire) errors of the SQL stores. They never cross the wire as such: the server maps a failing store
 * to an internal error. A string code says what went wrong so callers and the CLI can react without parsing text.
 */

/** What went wrong, as a stable string. */
export type StoreErrorCode =
  /** The store URL is not one `openStore` understands. */
  | 'BAD_STORE_URL'
  /** An option is out of range (schema name, interval). */
  | 'BAD_OPTIONS'
  /** A method was called with an argument it cannot honour (a lease of no time, a role with no name). */
  | 'BAD_ARGUMENT'
  /** The store could not be opened: its database is not reachable, refuses the credentials, or does not exist. */
  | 'STORE_UNAVAILABLE'
  /** The optional driver package (pg, better-sqlite3) is not installed. */
  | 'DRIVER_MISSING'
  /** The database was migrated by a newer a2a-once than this one. */
  | 'SCHEMA_TOO_NEW'
  /** A key claim kept losing to concurrent deletes; never treated as a successful claim. */
  | 'CLAIM_UNSETTLED'
  /** Task ids must be unique within a scope: `createTask` was given an id that exists. */
  | 'TASK_EXISTS'
  /**
   * The store did not answer within its bound (Redis: ADR 0127). The call may have been applied, its answer lost:
   * callers treat it as a transient error whose outcome is unknown (ADR 0052), never as "nothing happened".
   */
  | 'STORE_TIMEOUT';

/** An error raised by a SQL store or by `openStore`. */
export class StoreError extends Error {
  override name = 'StoreError';
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
