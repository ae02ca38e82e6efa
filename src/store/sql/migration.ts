/**
 * Versioned migrations, shared shape of both SQL backends. A migration is a list of statements (one per query,
 * because PGlite's extended protocol takes one statement at a time); the ledger table `a2a_migrations` records
 * which versions were applied. Migrations are append-only: a released version is never edited.
 */

/** One schema version. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly statements: readonly string[];
  /**
   * Run after `statements`, in the same transaction, each with one parameter: the migration's time from the
   * store's clock (`@now` in SQLite, `$1` in PostgreSQL). For data only the application clock can give, since
   * every stored time comes from it (ADR 0010), never from the database's clock.
   */
  readonly atMigrationTime?: readonly string[];
}

/** What `migrate()` did. */
export interface MigrationReport {
  /** Versions applied by this call, in order (empty when the schema was current). */
  readonly applied: readonly number[];
  /** The schema version after the call. */
  readonly version: number;
}

/** Where a store's schema stands (`TaskStore.schemaStatus`). */
export interface SchemaStatus {
  /** The newest version applied to the database (0: none, the ledger is missing). */
  readonly version: number;
  /** The newest version this a2a-once knows. */
  readonly latest: number;
}

/** The newest version of a migration list. */
export function latestVersion(migrations: readonly Migration[]): number {
  return migrations.reduce((max, m) => Math.max(max, m.version), 0);
}
