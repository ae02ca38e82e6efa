/**
 * Where the PostgreSQL tests run: the real server on 127.0.0.1:5432 (database `test`, trust auth, the current
 * user or `postgres`), or PGlite when no server answers. Under `CI=true` a missing server fails the run instead
 * of falling back, so CI never silently tests less than it claims.
 */
import pg from 'pg';
import type { PgPoolLike } from '../../src/store/postgres/index.js';
import { pglitePool } from '../../src/store/postgres/index.js';

/** A way to get pools onto one database. */
export interface PgBackend {
  /** `server` (a real PostgreSQL) or `pglite`. */
  readonly kind: 'server' | 'pglite';
  /** A pool onto the database; every call on a server gives a new pool with its own connections. */
  pool(): PgPoolLike;
  /** A connection string for the database (server only). */
  readonly url?: string;
  /** Ends every pool made. */
  end(): Promise<void>;
}

const HOST = '127.0.0.1';
const PORT = 5432;
const DATABASE = 'test';

async function tryUser(user: string | undefined): Promise<boolean> {
  const client = new pg.Client({
    host: HOST,
    port: PORT,
    database: DATABASE,
    user,
    connectionTimeoutMillis: 2000,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Which PostgreSQL the tests run on: the server (as which user), or PGlite and why. */
export type PgLane =
  | { readonly kind: 'server'; readonly user: string | undefined }
  | { readonly kind: 'pglite'; readonly why: string };

/** Where the server is, for messages. */
export const PG_SERVER = `${HOST}:${PORT} (database ${DATABASE})`;

/** A connection string for the server as `user` (undefined: the default user). */
export function pgServerUrl(user: string | undefined): string {
  return `postgres://${encodeURIComponent(user ?? '')}@${HOST}:${PORT}/${DATABASE}`;
}

/** Decides the lane: the first user the server lets in, else PGlite. The test run prints it once (global setup). */
export async function choosePgLane(): Promise<PgLane> {
  // A2A_ONCE_TEST_PG=pglite forces the fallback, to test the PGlite path on a machine that has a server.
  if (process.env.A2A_ONCE_TEST_PG === 'pglite') return { kind: 'pglite', why: 'A2A_ONCE_TEST_PG=pglite' };
  for (const user of [process.env.PGUSER ?? process.env.USER, 'postgres']) {
    if (await tryUser(user)) return { kind: 'server', user };
  }
  return { kind: 'pglite', why: `no PostgreSQL answers on ${PG_SERVER}` };
}

/** Connects to the server, or falls back to PGlite (with a visible notice) where allowed. */
export async function pgBackend(): Promise<PgBackend> {
  const lane = await choosePgLane();
  if (lane.kind === 'server') {
    const { user } = lane;
    const pools: pg.Pool[] = [];
    const url = pgServerUrl(user);
    return {
      kind: 'server',
      url,
      pool() {
        // Ten per pool: a test file opens two or three pools, two files run at once, and the server's default
        // max_connections is 100; the races still run on ten connections a side.
        const p = new pg.Pool({ host: HOST, port: PORT, database: DATABASE, user, max: 10 });
        p.on('error', () => undefined);
        pools.push(p);
        return p;
      },
      async end() {
        await Promise.all(pools.map((p) => p.end()));
      },
    };
  }
  if (process.env.CI === 'true') {
    throw new Error(`CI=true and ${lane.why}: refusing to fall back`);
  }
  console.warn(
    `[a2a-once] NOTICE: ${lane.why}; the PostgreSQL store tests run on PGlite instead ` +
      '(one connection: races are serialised, not truly concurrent).',
  );
  const { PGlite } = await import('@electric-sql/pglite');
  const db = new PGlite();
  const shared = pglitePool(db);
  return {
    kind: 'pglite',
    pool: () => shared,
    end: () => db.close(),
  };
}

/** A fresh schema name for one test. */
export function freshSchema(): string {
  return `a2a_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
}
