/** openStore: URL forms, migration on open, refusals, and password hiding. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/store/clock.js';
import { MemoryTaskStore } from '../../src/store/memory/index.js';
import { describeStoreUrl, openStore } from '../../src/store/open-store.js';
import { PostgresTaskStore } from '../../src/store/postgres/index.js';
import { StoreError } from '../../src/store/sql/store-error.js';
import { SqliteTaskStore } from '../../src/store/sqlite/index.js';
import { freshSchema, pgBackend } from '../store-contract/pg-backend.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-open-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const scope = { tenant: '', owner: '' };
const task = { id: 't1', status: { state: 'TASK_STATE_SUBMITTED' as const } };

describe('openStore', () => {
  it('opens the memory store with the given clock', async () => {
    const clock = new ManualClock(1234);
    const store = await openStore('memory', { clock });
    expect(store).toBeInstanceOf(MemoryTaskStore);
    expect(store.migrate).toBeUndefined();
    const r = await store.createTask(scope, { task });
    expect(r.outcome === 'created' && r.record.createdAt).toBe(1234);
  });

  it('opens and migrates a SQLite file, and sqlite::memory:', async () => {
    for (const url of [`sqlite:${join(dir, 'a.db')}`, `sqlite://${join(dir, 'b.db')}`, 'sqlite::memory:']) {
      const store = await openStore(url);
      expect(store).toBeInstanceOf(SqliteTaskStore);
      expect(store.capabilities).toEqual({
        idempotency: true,
        sharedAcrossProcesses: true,
        keysOnDisk: true,
      });
      expect((await store.createTask(scope, { task })).outcome).toBe('created');
      expect(await store.migrate?.()).toEqual({ applied: [], version: 8 });
      await store.close();
    }
    // The file keeps its data across opens.
    const again = await openStore(`sqlite:${join(dir, 'a.db')}`);
    expect(await again.getTask(scope, 't1')).toBeDefined();
    await again.close();
  });

  it('leaves the schema alone with migrate: false', async () => {
    const store = await openStore(`sqlite:${join(dir, 'c.db')}`, { migrate: false });
    expect(await store.migrate?.()).toEqual({ applied: [1, 2, 3, 4, 5, 6, 7, 8], version: 8 });
    await store.close();
  });

  it('opens PostgreSQL in the ?schema= schema, creating it', async () => {
    const backend = await pgBackend();
    try {
      if (!backend.url) return; // PGlite has no URL: covered by the contract suite
      const schema = freshSchema();
      const store = await openStore(`${backend.url}?schema=${schema}`);
      try {
        expect(store).toBeInstanceOf(PostgresTaskStore);
        expect((store as PostgresTaskStore).schema).toBe(schema);
        expect((await store.createTask(scope, { task })).outcome).toBe('created');
      } finally {
        const pool = backend.pool();
        await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await store.close();
      }
    } finally {
      await backend.end();
    }
  });

  it('refuses unknown URLs and bad schema names with a StoreError', async () => {
    await expect(openStore('mysql://x')).rejects.toMatchObject({ name: 'StoreError', code: 'BAD_STORE_URL' });
    await expect(openStore('sqlite:')).rejects.toBeInstanceOf(StoreError);
    await expect(openStore('postgres://u@127.0.0.1:1/db?schema=bad-name')).rejects.toMatchObject({
      code: 'BAD_OPTIONS',
    });
  });

  it('refuses a store URL parameter nobody reads, naming the one it is probably a typo of', async () => {
    // pg ignores parameters it does not know: `?scheme=` opened and migrated `public` instead.
    const typo = openStore('postgres://u@127.0.0.1:1/db?scheme=tenant_a');
    await expect(typo).rejects.toMatchObject({ name: 'StoreError', code: 'BAD_STORE_URL' });
    await expect(typo).rejects.toThrow(
      "store URL parameter 'scheme' is not one a2a-once or the pg driver reads; did you mean 'schema'?",
    );
    await expect(openStore('postgres://u@127.0.0.1:1/db?statement_timout=5000')).rejects.toThrow(
      "did you mean 'statement_timeout'?",
    );
    const unknown = openStore('postgres://u@127.0.0.1:1/db?zzz=1');
    await expect(unknown).rejects.toMatchObject({ code: 'BAD_STORE_URL' });
    await expect(unknown).rejects.toThrow('known: schema, ');
  });

  it('says which URL opens a bare file name, and names an unreachable store with its password hidden', async () => {
    await expect(openStore('./my.db')).rejects.toThrow('did you mean sqlite:./my.db?');
    const down = openStore('postgres://app:hunter2@127.0.0.1:1/db?schema=s');
    await expect(down).rejects.toMatchObject({ name: 'StoreError', code: 'STORE_UNAVAILABLE' });
    await expect(down).rejects.toThrow(
      'could not open the store postgres://app:***@127.0.0.1:1/db?schema=s (connect ECONNREFUSED 127.0.0.1:1): is the database running and listening there?',
    );
    await down.catch((err: Error) => expect(err.message).not.toContain('hunter2'));
  });

  it('hides passwords when describing a URL', () => {
    expect(describeStoreUrl('postgres://bob:s3cret@db.example:5432/app?schema=x')).toBe(
      'postgres://bob:***@db.example:5432/app?schema=x',
    );
    expect(describeStoreUrl('postgresql://db.example/app?password=p')).toBe(
      'postgresql://db.example/app?password=***',
    );
    expect(describeStoreUrl('postgres://bob@db/app')).toBe('postgres://bob@db/app');
    expect(describeStoreUrl('sqlite:./a.db')).toBe('sqlite:./a.db');
    expect(describeStoreUrl('memory')).toBe('memory');
  });
});
