/**
 * Test data whose process is gone: PostgreSQL schemas (`a2a_test_<pid>_<random>`, `freshSchema` in
 * store-contract/pg-backend.ts) and Redis key prefixes (`a2a-test:<pid>-<random>:`, `RUN_PREFIX` in
 * store-contract/redis-backend.ts). A test that failed before its cleanup, or a worker killed mid-file, leaves its
 * data behind; over many runs the shared servers fill with it, and PostgreSQL's catalog bloats (every later CREATE
 * and DROP SCHEMA slows down). Dropped at the start and the end of a run; the data of a process still alive
 * (another run on this machine) is left alone.
 */
import pg from 'pg';
import { createClient } from 'redis';
import { processAlive as alive } from './helpers/process-alive.js';

const TEST_SCHEMA = /^a2a_test_(\d+)_[a-z0-9]+$/;

/** Drops the orphaned test schemas of the database at `url`; resolves with how many. Never throws. */
export async function dropOrphanSchemas(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ nspname: string }>(
      `SELECT nspname FROM pg_namespace WHERE nspname LIKE 'a2a\\_test\\_%'`,
    );
    let dropped = 0;
    for (const { nspname } of rows) {
      const m = TEST_SCHEMA.exec(nspname);
      if (!m || alive(Number(m[1]))) continue;
      await client.query(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`);
      dropped++;
    }
    return dropped;
  } catch {
    return 0;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const TEST_PREFIX = /^a2a-test:(\d+)-[a-z0-9]+:/;

/** Deletes the keys of orphaned test prefixes on the Redis at `url` (SCAN, never KEYS); resolves with how many. */
export async function dropOrphanRedisKeys(url: string): Promise<number> {
  const client = createClient({ url, socket: { connectTimeout: 2000, reconnectStrategy: false } });
  client.on('error', () => undefined);
  try {
    await client.connect();
    let cursor = '0';
    let dropped = 0;
    do {
      const r = await client.scan(cursor, { MATCH: 'a2a-test:*', COUNT: 1000 });
      cursor = String(r.cursor);
      const orphans = r.keys.filter((k) => {
        const m = TEST_PREFIX.exec(k);
        return m !== null && !alive(Number(m[1]));
      });
      if (orphans.length > 0) dropped += await client.unlink(orphans);
    } while (cursor !== '0');
    return dropped;
  } catch {
    return 0;
  } finally {
    await client.close().catch(() => undefined);
  }
}
