/**
 * PostgreSQL group commit (ADR 0049): keyed sends and commits that arrive while one of their kind is in flight go
 * to the database as one statement, and each caller still gets exactly the outcome it would have had alone. Calls
 * made in the same tick are certain to share a batch (the store lets a batch settle over a few turns of the event
 * loop before it sends it, ADR 0050, and later calls queue behind it), so every case below builds its batch that
 * way and checks the store did batch. Runs on the real server, or on PGlite where no server answers.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/store/clock.js';
import { PostgresTaskStore } from '../../src/store/postgres/index.js';
import type { CreateTaskResult } from '../../src/store/task-store.js';
import {
  ALICE,
  BOB,
  claimOf,
  HOUR,
  keyOf,
  makeTask,
  statusEvent,
  withState,
} from '../store-contract/fixtures/tasks.js';
import { freshSchema, pgBackend } from '../store-contract/pg-backend.js';

const backend = await pgBackend();
const stores: PostgresTaskStore[] = [];
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  await backend.end();
});

const clock = new ManualClock();
let store: PostgresTaskStore;
beforeEach(async () => {
  store = new PostgresTaskStore({ pool: backend.pool(), schema: freshSchema(), clock });
  stores.push(store);
  await store.migrate();
});

const keyed = (id: string, key: number | string, scope = ALICE) =>
  store.createTask(scope, { task: makeTask(id), claim: claimOf(keyOf(key), `m-${key}`, clock.now() + HOUR) });

describe(`PostgreSQL group commit (${backend.kind})`, () => {
  it('claims racing keyed sends in batches: one task per key, every other send of the key told it is held', async () => {
    // 30 keys, 60 sends: each key sent twice, by messages with different task ids, the second in the same batch
    // or a later one. Two scopes, so one batch spans tenants' rows too.
    const sends = Array.from({ length: 60 }, (_, i) =>
      keyed(`t${i}`, i % 30, i % 2 === 0 ? ALICE : BOB).then((r) => ({ i, r })),
    );
    const results = await Promise.all(sends);
    expect(store.groupCommit.claims.batches).toBeGreaterThan(0);
    for (let key = 0; key < 30; key++) {
      const mine = results.filter(({ i }) => i % 30 === key);
      const created = mine.filter(({ r }) => r.outcome === 'created');
      expect(created).toHaveLength(1);
      const winner = (created[0]!.r as Extract<CreateTaskResult, { outcome: 'created' }>).record.task.id;
      const scope = key % 2 === 0 ? ALICE : BOB;
      for (const { r } of mine.filter(({ r }) => r.outcome !== 'created')) {
        expect(r).toMatchObject({ outcome: 'held', key: { key: keyOf(key), taskId: winner } });
      }
      expect((await store.getKey(scope, keyOf(key)))?.taskId).toBe(winner);
      expect((await store.getTask(scope, winner))?.task.id).toBe(winner);
    }
    // The losers' tasks were never written.
    for (const { i, r } of results) {
      if (r.outcome === 'held')
        expect(await store.getTask(i % 2 === 0 ? ALICE : BOB, `t${i}`)).toBeUndefined();
    }
  });

  it('a task id that exists fails only its own send: the batch runs alone, the others are created', async () => {
    await store.createTask(ALICE, { task: makeTask('taken') });
    const first = keyed('a', 'a');
    const batch = [keyed('b', 'b'), keyed('taken', 'c'), keyed('d', 'd')];
    const outcomes = await Promise.allSettled([first, ...batch]);
    expect(store.groupCommit.claims.batches).toBe(1);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value.outcome : (o.reason as unknown)))).toEqual(
      ['created', 'created', expect.objectContaining({ code: 'TASK_EXISTS' }), 'created'],
    );
    // Nothing of the refused send was written: its key is free for its retry.
    expect(await store.getKey(ALICE, keyOf('c'))).toBeUndefined();
    expect((await keyed('c-retry', 'c')).outcome).toBe('created');
    expect((await store.getTask(ALICE, 'taken'))?.seq).toBe(0);
  });

  it('commits racing writes of different tasks in batches; a stale fence fails alone, with the current row', async () => {
    const tasks = Array.from({ length: 12 }, (_, i) => makeTask(`c${i}`));
    for (const t of tasks) await store.createTask(ALICE, { task: t });
    const commits = tasks.map((t, i) =>
      store.commit(ALICE, t.id, {
        task: withState(t, 'TASK_STATE_COMPLETED'),
        events: [statusEvent(t, 'TASK_STATE_WORKING'), statusEvent(t, 'TASK_STATE_COMPLETED', `#${i}`)],
        // The sixth writer holds a fence the task never had.
        expectFence: i === 5 ? 7 : 1,
        expectSeq: 0,
      }),
    );
    const results = await Promise.all(commits);
    expect(store.groupCommit.commits.batches).toBeGreaterThan(0);
    results.forEach((r, i) => {
      if (i === 5) {
        expect(r).toMatchObject({ ok: false, current: { seq: 0, fence: 1 } });
        return;
      }
      expect(r).toMatchObject({ ok: true, record: { seq: 2, fence: 1 } });
    });
    for (const [i, t] of tasks.entries()) {
      const events = await store.readEvents(ALICE, t.id, 0);
      if (i === 5) {
        expect(events).toEqual([]);
        expect((await store.getTask(ALICE, t.id))?.task.status.state).toBe('TASK_STATE_SUBMITTED');
        continue;
      }
      expect(events.map((e) => e.seq)).toEqual([1, 2]);
      expect(events[1]!.event).toEqual(statusEvent(t, 'TASK_STATE_COMPLETED', `#${i}`));
      expect((await store.getTask(ALICE, t.id))?.task.status.state).toBe('TASK_STATE_COMPLETED');
    }
  });

  it('two writes of one task never share a batch: they apply in order, the second against the first', async () => {
    const t = makeTask('same');
    const other = makeTask('other');
    await store.createTask(ALICE, { task: t });
    await store.createTask(ALICE, { task: other });
    const write = (seq: number, state: 'TASK_STATE_WORKING' | 'TASK_STATE_COMPLETED', task = t) =>
      store.commit(ALICE, task.id, {
        task: withState(task, state),
        events: [statusEvent(task, state)],
        expectFence: 1,
        expectSeq: seq,
      });
    const first = write(0, 'TASK_STATE_WORKING', other);
    // Both expect seq 0: the first to arrive wins, the second sees the first's row.
    const racing = [write(0, 'TASK_STATE_WORKING'), write(0, 'TASK_STATE_COMPLETED')];
    const [, a, b] = await Promise.all([first, ...racing]);
    expect(a).toMatchObject({ ok: true, record: { seq: 1 } });
    expect(b).toMatchObject({ ok: false, current: { seq: 1 } });
    expect((await store.getTask(ALICE, t.id))?.task.status.state).toBe('TASK_STATE_WORKING');
  });
});

describe(`PostgreSQL group commit with hostile text (${backend.kind})`, () => {
  // Batch statements pass every column as an array literal: each of these must come back as it went in, never
  // as SQL NULL, a split element or a mangled escape. (Keys keep their own shape: the server admits no other.)
  const TEXTS = [
    'NULL',
    'null',
    '',
    '"quoted"',
    'back\\slash',
    '{braces},{and,commas}',
    'ünïcødé 🚀',
    'nul \u0000 byte',
    "it's",
  ];

  it('creates and commits tasks whose text needs escaping, in batches, and reads back exactly what was written', async () => {
    const task = (i: number) => ({ ...makeTask(`h${i}`), metadata: { text: TEXTS[i % TEXTS.length]! } });
    const first = keyed('h-alone', 'h-alone');
    const creates = TEXTS.map((_, i) =>
      store.createTask(ALICE, {
        task: task(i),
        claim: claimOf(keyOf(`h${i}`), `m-h${i}`, clock.now() + HOUR),
      }),
    );
    await first;
    expect((await Promise.all(creates)).map((r) => r.outcome)).toEqual(TEXTS.map(() => 'created'));
    // Batched, and the batch statement itself took every row (no fallback to single statements).
    // The first call settled into the same batch as the others, made in its tick.
    expect(store.groupCommit.claims).toMatchObject({ batches: 1, largest: TEXTS.length + 1, failed: 0 });
    for (const [i, text] of TEXTS.entries()) {
      expect((await store.getTask(ALICE, `h${i}`))?.task.metadata).toEqual({ text });
      expect((await store.getKey(ALICE, keyOf(`h${i}`)))?.taskId).toBe(`h${i}`);
    }

    const alone = store.commit(ALICE, 'h-alone', {
      task: withState(makeTask('h-alone'), 'TASK_STATE_WORKING'),
      events: [],
      expectFence: 1,
    });
    const commits = TEXTS.map((text, i) => {
      const done = { ...withState(task(i), 'TASK_STATE_COMPLETED'), metadata: { text, again: text } };
      return store.commit(ALICE, `h${i}`, {
        task: done,
        events: [statusEvent(done, 'TASK_STATE_COMPLETED', text)],
        expectFence: 1,
        expectSeq: 0,
      });
    });
    await alone;
    expect((await Promise.all(commits)).map((r) => r.ok)).toEqual(TEXTS.map(() => true));
    expect(store.groupCommit.commits).toMatchObject({ batches: 1, largest: TEXTS.length + 1, failed: 0 });
    for (const [i, text] of TEXTS.entries()) {
      expect((await store.getTask(ALICE, `h${i}`))?.task.metadata).toEqual({ text, again: text });
      const events = await store.readEvents(ALICE, `h${i}`, 0);
      expect(events.map((e) => e.event)).toEqual([
        statusEvent({ ...task(i), metadata: { text, again: text } }, 'TASK_STATE_COMPLETED', text),
      ]);
    }
  });
});

describe.skipIf(backend.kind !== 'server')('PostgreSQL group commit across two replicas', () => {
  it('two replicas claiming the same keys in opposite orders, in batches: one task per key, no deadlock', async () => {
    const schema = freshSchema();
    const [a, b] = [0, 1].map(() => new PostgresTaskStore({ pool: backend.pool(), schema, clock }));
    stores.push(a!, b!);
    await a!.migrate();
    // Every key insert takes 2 ms (a slow disk, played by a trigger of this test's schema): the two batches
    // below are then certain to overlap, each holding keys the other wants.
    await backend.pool().query(`CREATE FUNCTION "${schema}".slow_insert() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN PERFORM pg_sleep(0.002); RETURN NEW; END $$`);
    await backend.pool().query(`CREATE TRIGGER slow_insert BEFORE INSERT ON "${schema}".a2a_keys
      FOR EACH ROW EXECUTE FUNCTION "${schema}".slow_insert()`);
    const send = (s: PostgresTaskStore, replica: string, key: string) =>
      s
        .createTask(ALICE, {
          task: makeTask(`${replica}-${key}`),
          claim: claimOf(keyOf(key), `m-${key}`, clock.now() + HOUR),
        })
        .then((r) => ({ key, r }));
    for (let round = 0; round < 3; round++) {
      // Each replica's first send goes alone; the 60 shared keys then form one batch on each, A's in ascending
      // order and B's in descending order, sent at about the same moment.
      const keys = Array.from({ length: 60 }, (_, i) => `r${round}-${String(i).padStart(2, '0')}`);
      const results = await Promise.all([
        send(a!, 'a', `r${round}-alone-a`),
        ...keys.map((k) => send(a!, 'a', k)),
        send(b!, 'b', `r${round}-alone-b`),
        ...[...keys].reverse().map((k) => send(b!, 'b', k)),
      ]);
      for (const key of keys) {
        const mine = results.filter((x) => x.key === key);
        const created = mine.filter((x) => x.r.outcome === 'created');
        expect(created, key).toHaveLength(1);
        const winner = (created[0]!.r as Extract<CreateTaskResult, { outcome: 'created' }>).record.task.id;
        const others = mine.filter((x) => x.r.outcome !== 'created');
        expect(others).toHaveLength(1);
        expect(others[0]!.r).toMatchObject({ outcome: 'held', key: { taskId: winner } });
        expect((await a!.getKey(ALICE, keyOf(key)))?.taskId).toBe(winner);
      }
    }
    // Both replicas batched, and no batch of either ever failed: keys go in in one order on every replica, so the
    // later batch waits for the earlier one instead of the two deadlocking.
    for (const s of [a!, b!]) {
      expect(s.groupCommit.claims.batches).toBeGreaterThanOrEqual(3);
      expect(s.groupCommit.claims.failed).toBe(0);
    }
  });
});

describe.skipIf(backend.kind !== 'server')('PostgreSQL statistics of a fresh tasks table', () => {
  it('after ten thousand creates the store has analyzed its tasks table: commit batches look tasks up by index', async () => {
    const schema = freshSchema();
    const s = new PostgresTaskStore({ pool: backend.pool(), schema, clock });
    stores.push(s);
    await s.migrate();
    const pool = backend.pool();
    const lastAnalyze = async () =>
      (
        await pool.query(
          `SELECT last_analyze FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'a2a_tasks'`,
          [schema],
        )
      ).rows[0]?.last_analyze;
    expect(await lastAnalyze()).toBeNull();
    for (let batch = 0; batch < 100; batch++) {
      await Promise.all(
        Array.from({ length: 100 }, (_, i) => s.createTask(ALICE, { task: makeTask(`s${batch}-${i}`) })),
      );
    }
    // The ANALYZE runs in the background; the statistics collector reports it shortly after.
    const deadline = Date.now() + 10_000;
    while ((await lastAnalyze()) === null && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(await lastAnalyze()).not.toBeNull();
    // The plan every connection now makes for the commit batch (generic, as a prepared statement's is).
    const c = await pool.connect();
    try {
      await c.query('SET plan_cache_mode = force_generic_plan');
      const types = Array.from({ length: 21 }, (_, i) =>
        [5, 6, 12, 13, 18, 19].includes(i)
          ? 'int[]'
          : [10, 14].includes(i)
            ? 'boolean[]'
            : [11, 16].includes(i)
              ? 'bigint[]'
              : 'text[]',
      );
      const { pgStatements } = await import('../../src/store/postgres/pg-statements.js');
      const { pgTables } = await import('../../src/store/postgres/pg-tables.js');
      await c.query(`PREPARE probe(${types.join(', ')}) AS ${pgStatements(pgTables(schema)).commitTaskMany}`);
      const plan = (await c.query(`EXPLAIN EXECUTE probe(${types.map(() => 'NULL').join(', ')})`)).rows
        .map((r) => String(r['QUERY PLAN']))
        .join('\n');
      expect(plan).toContain('Index Scan using a2a_tasks_pkey on a2a_tasks');
      expect(plan).not.toContain('Seq Scan on a2a_tasks');
    } finally {
      c.release();
    }
  }, 60_000);
});
