/**
 * Many blocking waits on one SQL store at once (a busy server: every blocking send waits for its task) print no
 * MaxListenersExceededWarning. Each wait links its signal to the store's closing signal for as long as it waits,
 * so past ten waiters Node warned of a leak that was not one, on every busy server's stderr.
 */
import { rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresTaskStore } from '../../src/store/postgres/index.js';
import { SqliteTaskStore } from '../../src/store/sqlite/index.js';
import { ALICE, makeTask } from '../store-contract/fixtures/tasks.js';
import { freshSchema, pgBackend } from '../store-contract/pg-backend.js';

const backend = await pgBackend();
const dir = mkdtempSync(join(tmpdir(), 'a2a-once-waiters-'));
afterAll(async () => {
  await backend.end();
  rmSync(dir, { recursive: true, force: true });
});

const stores: [string, () => Promise<SqliteTaskStore | PostgresTaskStore>][] = [
  [
    'SQLite',
    async () => {
      const s = new SqliteTaskStore({ path: join(dir, 'w.db') });
      await s.migrate();
      return s;
    },
  ],
  [
    `PostgreSQL (${backend.kind})`,
    async () => {
      const s = new PostgresTaskStore({ pool: backend.pool(), schema: freshSchema() });
      await s.migrate();
      return s;
    },
  ],
];

describe.each(stores)('%s: many waiters at once', (_name, open) => {
  it('waits on 50 tasks at once without a MaxListenersExceededWarning', async () => {
    const store = await open();
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const ids = Array.from({ length: 50 }, (_, i) => `w${i}`);
      for (const id of ids) await store.createTask(ALICE, { task: makeTask(id) });
      // A signal per wait, as each request has its own.
      const stops = ids.map(() => new AbortController());
      const waits = ids.map((id, i) => store.nextRecord(ALICE, id, 0, stops[i]!.signal));
      await new Promise((r) => setTimeout(r, 50));
      for (const stop of stops) stop.abort();
      expect(await Promise.all(waits)).toEqual(ids.map(() => undefined));
      // Warnings are emitted on the next tick.
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await store.close();
    }
  });
});
