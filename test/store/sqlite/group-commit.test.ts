/**
 * SQLite group commit (ADR 0047): the writes of one turn of the event loop share one transaction, and each
 * caller still gets its own outcome: a batch in which a write throws runs again with a savepoint per write.
 */
import BetterSqlite3 from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_SETTLE_TURNS } from '../../../src/store/sql/settle.js';
import { SqliteGroupCommit } from '../../../src/store/sqlite/sqlite-group-commit.js';
import { SqliteTaskStore } from '../../../src/store/sqlite/index.js';
import { ALICE, claimOf, HOUR, keyOf, makeTask } from '../../store-contract/fixtures/tasks.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function freshDb(): BetterSqlite3.Database {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-once-group-'));
  dirs.push(dir);
  const db = new BetterSqlite3(join(dir, 'g.db'));
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL)');
  return db;
}

/** A fresh database, a group commit on it, and an insert into its table. */
function freshGroup() {
  const db = freshDb();
  return { db, group: new SqliteGroupCommit(db), insert: db.prepare('INSERT INTO t (k, v) VALUES (?, ?)') };
}

describe('SqliteGroupCommit', () => {
  it('commits the writes queued in one turn together, and resolves each with its own result', async () => {
    const { db, group, insert } = freshGroup();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => group.run(() => insert.run(`k${i}`, i).changes)),
    );
    expect(results).toEqual(Array(50).fill(1));
    expect(group.commits).toBe(1);
    expect(group.largestBatch).toBe(50);
    // Nothing threw: no savepoints were needed.
    expect(group.savepointRuns).toBe(0);
    expect(db.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 50 });
    db.close();
  });

  it('a write that throws is rolled back alone; the others of its batch commit', async () => {
    const { db, group, insert } = freshGroup();
    const outcomes = await Promise.allSettled([
      group.run(() => insert.run('a', 1)),
      group.run(() => {
        insert.run('b', 2); // written, then undone with its savepoint
        throw new Error('refused');
      }),
      group.run(() => insert.run('a', 3)), // primary key conflict: its own error
      group.run(() => insert.run('c', 4)),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ message: 'refused' });
    expect(String((outcomes[2] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
    expect(db.prepare('SELECT k, v FROM t ORDER BY k').all()).toEqual([
      { k: 'a', v: 1 },
      { k: 'c', v: 4 },
    ]);
    expect(group.commits).toBe(1);
    expect(group.savepointRuns).toBe(1);
    db.close();
  });

  it('a batch run again after a throw applies every write once: the first run left nothing behind', async () => {
    const db = freshDb();
    db.prepare("INSERT INTO t (k, v) VALUES ('n', 0)").run();
    const group = new SqliteGroupCommit(db);
    const bump = db.prepare("UPDATE t SET v = v + 1 WHERE k = 'n' RETURNING v");
    const read = () => (bump.get() as { v: number }).v;
    let calls = 0;
    const outcomes = await Promise.allSettled([
      group.run(read),
      group.run(() => {
        calls++;
        read();
        throw new Error('refused');
      }),
      group.run(read),
    ]);
    // Each write saw the counter as if the batch had run once, with the refused write rolled back alone.
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : 'rejected'))).toEqual([
      1,
      'rejected',
      2,
    ]);
    expect(db.prepare("SELECT v FROM t WHERE k = 'n'").get()).toEqual({ v: 2 });
    expect(calls).toBe(2);
    expect(group.commits).toBe(1);
    db.close();
  });

  it('a batch whose transaction cannot begin rejects every caller and writes nothing', async () => {
    const db = freshDb();
    const other = new BetterSqlite3(db.name);
    other.pragma('busy_timeout = 0');
    db.pragma('busy_timeout = 0');
    const group = new SqliteGroupCommit(db);
    const insert = db.prepare('INSERT INTO t (k, v) VALUES (?, ?)');
    other.prepare('BEGIN IMMEDIATE').run(); // another process holds the write lock
    const outcomes = await Promise.allSettled([
      group.run(() => insert.run('x', 1)),
      group.run(() => insert.run('y', 2)),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/busy|locked/i);
    other.prepare('ROLLBACK').run();
    expect(db.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 0 });
    // The next batch goes through.
    await group.run(() => insert.run('z', 3));
    expect(db.prepare('SELECT k FROM t').all()).toEqual([{ k: 'z' }]);
    other.close();
    db.close();
  });

  it('writes made while a batch is pending join it; later ones form the next batch', async () => {
    const { db, group, insert } = freshGroup();
    const first = group.run(() => insert.run('1', 1));
    const second = group.run(() => insert.run('2', 2));
    await Promise.all([first, second]);
    await group.run(() => insert.run('3', 3));
    expect(group.commits).toBe(2);
    db.close();
  });

  it('waits while writes keep arriving turn after turn, so they share one commit', async () => {
    const { db, group, insert } = freshGroup();
    // One write now, then one more at each of the next turns of the event loop: agents finishing, requests
    // read. Flushed at the first turn, as the batch used to be, they would take four commits.
    const writes = [group.run(() => insert.run('0', 0))];
    for (let i = 1; i < MAX_SETTLE_TURNS; i++) {
      await new Promise((r) => setImmediate(r));
      writes.push(group.run(() => insert.run(String(i), i)));
    }
    await Promise.all(writes);
    expect(group.commits).toBe(1);
    expect(group.largestBatch).toBe(MAX_SETTLE_TURNS);
    db.close();
  });

  it('a steady stream of writes does not hold a batch back for more than MAX_SETTLE_TURNS turns', async () => {
    const { db, group, insert } = freshGroup();
    const first = group.run(() => insert.run('first', 0));
    let firstDone = false;
    void first.then(() => (firstDone = true));
    const writes: Promise<unknown>[] = [first];
    let turns = 0;
    // A new write every turn, forever if the batch waited for the stream to stop.
    while (!firstDone && turns < 50) {
      await new Promise((r) => setImmediate(r));
      const n = ++turns;
      writes.push(group.run(() => insert.run(`k${n}`, n)));
    }
    expect(firstDone).toBe(true);
    expect(turns).toBeLessThanOrEqual(MAX_SETTLE_TURNS + 2);
    await Promise.all(writes);
    db.close();
  });

  it('a lone write commits after one empty turn of the event loop', async () => {
    const { db, group, insert } = freshGroup();
    let done = false;
    const w = group.run(() => insert.run('alone', 1)).then(() => (done = true));
    await new Promise((r) => setImmediate(r));
    expect(done).toBe(false); // the first turn looks for company
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(done).toBe(true);
    await w;
    db.close();
  });
});

describe('the SQLite store under concurrent keyed creates', () => {
  it('shares commits between sends, and every claim keeps its own outcome', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-once-group-store-'));
    dirs.push(dir);
    const store = new SqliteTaskStore({ path: join(dir, 's.db') });
    await store.migrate();
    const before = store.groupCommitStats.commits;
    // 40 creates, two of them on one key: one claims, the other is told the key is held.
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        store.createTask(ALICE, {
          task: makeTask(`t${i}`),
          claim: claimOf(keyOf(i === 39 ? 0 : i), `m${i === 39 ? 0 : i}`, Date.now() + HOUR),
        }),
      ),
    );
    expect(results.filter((r) => r.outcome === 'created')).toHaveLength(39);
    expect(results[39]).toMatchObject({ outcome: 'held', key: { taskId: 't0' } });
    expect(await store.getTask(ALICE, 't39')).toBeUndefined();
    expect(store.groupCommitStats.commits - before).toBe(1);
    await store.close();
  });
});
