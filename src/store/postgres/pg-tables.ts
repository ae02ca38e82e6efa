/**
 * Schema-qualified table names of the PostgreSQL store. The schema is an identifier we splice into SQL, so it
 * is validated to a plain identifier and quoted.
 */
import { StoreError } from '../sql/store-error.js';

/** The qualified names of the store's tables. */
export interface PgTables {
  readonly schema: string;
  /** `"schema"`, quoted. */
  readonly quotedSchema: string;
  readonly tasks: string;
  readonly events: string;
  readonly keys: string;
  readonly pushConfigs: string;
  readonly migrations: string;
  readonly leases: string;
  readonly steps: string;
  readonly stepAttempts: string;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** The table names in `schema`; refuses a schema name that is not a plain identifier. */
export function pgTables(schema: string): PgTables {
  if (!IDENTIFIER.test(schema)) {
    throw new StoreError(
      'BAD_OPTIONS',
      `schema '${schema}' is not a plain identifier ([A-Za-z_][A-Za-z0-9_]*)`,
    );
  }
  const q = `"${schema}"`;
  return {
    schema,
    quotedSchema: q,
    tasks: `${q}.a2a_tasks`,
    events: `${q}.a2a_events`,
    keys: `${q}.a2a_keys`,
    pushConfigs: `${q}.a2a_push_configs`,
    migrations: `${q}.a2a_migrations`,
    leases: `${q}.a2a_leases`,
    steps: `${q}.a2a_steps`,
    stepAttempts: `${q}.a2a_step_attempts`,
  };
}
