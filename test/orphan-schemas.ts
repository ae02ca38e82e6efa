/**
 * Test schemas (`a2a_test_<pid>_<random>`, `freshSchema` in store-contract/pg-backend.ts) whose process is gone: a
 * test that failed before its cleanup, or a worker killed mid-file, leaves its schema behind, and over many runs
 * the shared database fills with them and its catalog bloats (every later CREATE and DROP SCHEMA slows down).
 * Dropped at the start and the end of a run; a schema of a process still alive (another run on this machine)
 * is left alone.
 */
import pg from 'pg';

const TEST_SCHEMA = /^a2a_test_(\d+)_[a-z0-9]+$/;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

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
