/**
 * Whether the local PostgreSQL answers, and a fresh schema URL for a test file. Process-level tests cannot fall
 * back to PGlite (it lives inside one process), so without a server they skip with a visible notice — except
 * under CI=true, where a missing server fails the run.
 */
import { userInfo } from 'node:os';
import pg from 'pg';

/** The local test database, as the OS user (libpq's default; CI shells may have no USER variable). */
export const PG_BASE_URL = `postgres://${encodeURIComponent(process.env.PGUSER ?? userInfo().username)}@127.0.0.1:5432/test`;

/** True when 127.0.0.1:5432 accepts a connection to `test`. Throws under CI=true when it does not. */
export async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_BASE_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch (err) {
    if (process.env.CI === 'true')
      throw new Error(`CI=true but PostgreSQL at ${PG_BASE_URL} does not answer: ${String(err)}`);
    console.warn(
      `NOTICE: PostgreSQL at ${PG_BASE_URL} does not answer; skipping the multi-process PostgreSQL tests.`,
    );
    return false;
  }
}

/** A connection URL on a fresh schema name (created by the store's migration). */
export function freshSchemaUrl(prefix: string): { url: string; schema: string } {
  const schema = `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  return { url: `${PG_BASE_URL}?schema=${schema}`, schema };
}

/** Drops a schema created by a test. */
export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_BASE_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
