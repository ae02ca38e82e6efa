// How a2a-once holds up as its store fills, on SQLite and PostgreSQL (docs/performance.md "Scale"):
//
//   growth    keyed SendMessage at 16 connections on a store already holding N finished keyed tasks (seeded in
//             bulk, lib/seed.mjs), beside an empty store of the same kind in the same rounds, for each N of
//             --counts (the same store topped up from one N to the next);
//   sweep     keyed SendMessage while retention sweeps --sweep expired keys and their finished tasks (the server
//             runs retention every second), beside the same load on an empty store with the same schedule;
//   recovery  a server starting on a store holding --lapsed tasks whose worker died (SUBMITTED, lease lapsed):
//             the time until the start-up recovery has taken every one over, and until every one is finished.
//
//   node bench/scale.mjs [--stores sqlite,postgres] [--counts 300000,1000000,3000000] [--sweep 1000000]
//                        [--lapsed 100000] [--parts growth,sweep,recovery] [--recovery '{"concurrency":64}']
//                        [--retention '{"batchSize":250}'] [--duration 5] [--warmup 2] [--rounds 3]
//
// Checks free disk space before seeding and deletes every store it made. Never exits non-zero for a missed target.
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import {
  benchOptions,
  describeMethod,
  int,
  loadWarning,
  makeStore,
  measure,
  median,
  ms,
  pgQuery,
  printTable,
  startServer,
} from './lib/harness.mjs';
import { checkDisk, seedPostgres, seedSqlite } from './lib/seed.mjs';

const OWN = ['--stores', '--counts', '--sweep', '--lapsed', '--parts', '--recovery', '--retention'];
const argv = process.argv.slice(2);
const opts = benchOptions(argv.filter((a, i) => !OWN.includes(a) && !OWN.includes(argv[i - 1])));
const arg = (name, dflt) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : dflt);
const PG = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const pgUp = await pgQuery(PG, 'SELECT 1');
const stores = arg('--stores', 'sqlite,postgres')
  .split(',')
  .filter((k) => k !== 'postgres' || pgUp);
const counts = arg('--counts', '300000,1000000,3000000').split(',').map(Number);
const sweepCount = Number(arg('--sweep', '1000000'));
const lapsedCount = Number(arg('--lapsed', '100000'));
const parts = arg('--parts', 'growth,sweep,recovery').split(',');
/** --recovery '{"concurrency":64}': the server's recovery options for the recovery part (default: its defaults). */
const recoveryOptions = arg('--recovery', undefined);
/** Bytes a finished keyed echo task takes with its events, key and indexes: a generous estimate, for the disk check. */
const BYTES_PER_TASK = 6000;
const DAY = 86_400_000;
/** Retention every second, in runs big enough to matter: the sweep happens while the load runs. */
/** --retention '{"batchSize":250}': merged into that schedule for the sweep part. */
const FAST_RETENTION = JSON.stringify({
  retention: { intervalMs: 1000, maxBatchesPerRun: 20, ...JSON.parse(arg('--retention', '{}')) },
});

console.log('# Scale: keyed SendMessage as the store fills, under a retention sweep, and start-up recovery');
console.log(describeMethod(opts));
if (!pgUp) console.log(`PostgreSQL at ${PG} is unreachable: skipped.`);
loadWarning();

/** A store of `kind` holding one real finished keyed task, written by a server on it: the seeding template. */
async function templateStore(kind) {
  const store = await makeStore(kind);
  const server = await startServer('a2a-once.mjs', [store.url]);
  try {
    const { mintKey, IDEMPOTENCY_METADATA_KEY, IDEMPOTENCY_EXTENSION_URI } =
      await import('../dist/idempotency/index.js');
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: {
          message: {
            messageId: randomUUID(),
            role: 'ROLE_USER',
            parts: [{ text: 'hello from the a2a benchmark!' }],
            metadata: { [IDEMPOTENCY_METADATA_KEY]: mintKey() },
            extensions: [IDEMPOTENCY_EXTENSION_URI],
          },
        },
      }),
    });
    const state = (await res.json()).result?.task?.status?.state;
    if (state !== 'TASK_STATE_COMPLETED') throw new Error(`the template send answered ${state}`);
  } finally {
    await server.stop();
  }
  return store;
}

/** A store of `kind` holding one task whose worker died: SUBMITTED, its lease lapsed, written by the store API. */
async function lapsedTemplateStore(kind) {
  const store = await makeStore(kind);
  const { openStore } = await import('../dist/store/open-store.js');
  const s = await openStore(store.url.replace(/^sqlite-normal:/, 'sqlite:'));
  try {
    const at = new Date().toISOString();
    const contextId = randomUUID();
    const id = randomUUID();
    const message = {
      messageId: randomUUID(),
      role: 'ROLE_USER',
      parts: [{ text: 'hello from the a2a benchmark!' }],
      taskId: id,
      contextId,
    };
    const r = await s.createTask(
      { tenant: '', owner: '' },
      {
        task: { id, contextId, status: { state: 'TASK_STATE_SUBMITTED', timestamp: at }, history: [message] },
        lease: { owner: 'bench-dead-worker', ttlMs: 10 },
      },
    );
    if (r.outcome !== 'created') throw new Error(`the lapsed template was not created: ${r.outcome}`);
  } finally {
    await s.close();
  }
  return store;
}

/** Adds copies [from, to) of the store's template task (its one task, the first time); returns the seconds taken. */
async function seed(kind, store, from, to, overrides) {
  const t0 = performance.now();
  const template = templates.get(store);
  if (kind === 'postgres') {
    const u = new URL(store.url);
    const schema = u.searchParams.get('schema');
    u.searchParams.delete('schema');
    templates.set(store, await seedPostgres(u.toString(), schema, { from, to, overrides, template }));
  } else {
    checkDisk(pathOf(store), (to - from) * BYTES_PER_TASK, `seeding ${int(to - from)} tasks`);
    templates.set(store, await seedSqlite(pathOf(store), { from, to, overrides, template }));
  }
  return (performance.now() - t0) / 1000;
}
const templates = new Map();

const pathOf = (store) => store.url.replace(/^sqlite(-normal)?:/, '');

/** The store's size on disk: the SQLite file (and its WAL), or the schema's relations. */
async function sizeOf(kind, store) {
  if (kind !== 'postgres') {
    const p = pathOf(store);
    return [p, `${p}-wal`].reduce((n, f) => n + (statSync(f, { throwIfNoEntry: false })?.size ?? 0), 0);
  }
  return Number(
    await pgValue(
      store,
      (s) => `SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c
     JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '${s}' AND c.relkind = 'r'`,
    ),
  );
}

/** One number from the store: a SQL query with `a2a_` tables, on the SQLite file or in the PostgreSQL schema. */
async function pgValue(store, sqlOf) {
  const { default: pg } = await import('pg');
  const u = new URL(store.url);
  const schema = u.searchParams.get('schema');
  u.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: u.toString() });
  await client.connect();
  try {
    return Object.values((await client.query(sqlOf(schema))).rows[0])[0];
  } finally {
    await client.end();
  }
}

async function countOf(kind, store, where, table = 'a2a_tasks') {
  if (kind === 'postgres')
    return Number(await pgValue(store, (s) => `SELECT count(*) FROM "${s}".${table} WHERE ${where}`));
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(pathOf(store), { readonly: true });
  try {
    return db.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${where}`).get().n;
  } finally {
    db.close();
  }
}

const target = (store, extra = []) => ({
  script: 'a2a-once.mjs',
  args: [store.url, ...extra],
  check: 'task',
  keyed: true,
});
const gb = (bytes) => `${(bytes / 1e9).toFixed(2)} GB`;

/** growth: per store, an empty store and one topped up to each count, measured in the same rounds. */
async function growth(kind) {
  const empty = await makeStore(kind);
  const full = await templateStore(kind);
  const rows = [];
  try {
    let have = 1;
    for (const n of counts) {
      const took = await seed(kind, full, have, n);
      have = n;
      const size = await sizeOf(kind, full);
      const byRound = { empty: [], full: [] };
      for (let round = 1; round <= opts.rounds; round++) {
        for (const which of round % 2 ? ['empty', 'full'] : ['full', 'empty']) {
          const r = await measure(target(which === 'empty' ? empty : full), opts);
          byRound[which].push(r);
          console.log(
            `  ${kind} ${int(n)} stored, round ${round}/${opts.rounds} ${which.padEnd(5)} ${int(r.rps).padStart(7)} req/s  p50 ${ms(r.p50)}  p99 ${ms(r.p99)} ms  other CPU ${r.otherCpu.toFixed(2)}`,
          );
        }
      }
      const ratios = byRound.full.map((r, i) => r.rps / byRound.empty[i].rps);
      rows.push([
        kind,
        int(n),
        `${took.toFixed(0)} s`,
        gb(size),
        int(median(byRound.empty.map((r) => r.rps))),
        int(median(byRound.full.map((r) => r.rps))),
        ms(median(byRound.full.map((r) => r.p99))),
        median(ratios).toFixed(3),
        ratios.map((x) => x.toFixed(3)).join(' '),
        median(ratios) >= 0.9 ? 'PASS' : 'FALL SHORT',
      ]);
    }
  } finally {
    await empty.cleanup();
    await full.cleanup();
  }
  return rows;
}

/** sweep: load while retention deletes `sweepCount` expired tasks and turns their keys into tombstones. */
async function sweep(kind) {
  const empty = await makeStore(kind);
  const expired = await templateStore(kind);
  try {
    const now = Date.now();
    // Finished 8 days ago (past the 7-day default), keys expired an hour ago.
    const took = await seed(kind, expired, 1, sweepCount + 1, {
      a2a_tasks: { updated_at: String(now - 8 * DAY) },
      a2a_keys: { created_at: String(now - 8 * DAY), expires_at: String(now - 3_600_000) },
    });
    const old = `updated_at < ${now - 7 * DAY}`;
    const before = await countOf(kind, expired, old);
    const during = await measure(target(expired, [FAST_RETENTION]), { ...opts, retries: 0 });
    const after = await countOf(kind, expired, old);
    const tombstones = await countOf(
      kind,
      expired,
      kind === 'postgres' ? 'tombstone' : 'tombstone = 1',
      'a2a_keys',
    );
    const baseline = await measure(target(empty, [FAST_RETENTION]), { ...opts, retries: 0 });
    return [
      [
        kind,
        int(sweepCount),
        `${took.toFixed(0)} s`,
        int(before - after),
        int(tombstones),
        int(after),
        ms(baseline.p99),
        ms(during.p99),
        (during.p99 / baseline.p99).toFixed(2),
        during.p99 / baseline.p99 <= 2 ? 'PASS' : 'FALL SHORT',
      ],
    ];
  } finally {
    await empty.cleanup();
    await expired.cleanup();
  }
}

/** The lease index's predicate, as the stores' findLapsedLeases repeat it (so SQLite may use the partial index). */
const RUNNING_LEASED = `lease_expires_at IS NOT NULL AND kind = 'task'
  AND status_state IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING')`;

/**
 * What the recovery part polls while the server works, on one connection kept open: whether a task still holds the
 * dead worker's lease (walks the partial lease index, which holds only running leased tasks, and stops at the first
 * match), and whether any task is still open. A count over the table on a new connection every 100 ms, as before,
 * cost the database about 5 s of CPU during a 13 s run, taken from the server it measures on a 2-core machine.
 */
async function poller(kind, store) {
  const held = (t) =>
    `SELECT EXISTS (SELECT 1 FROM ${t} WHERE lease_expires_at <= 9007199254740991 AND ${RUNNING_LEASED}
       AND lease_owner = 'bench-dead-worker') AS v`;
  const open = (t) =>
    `SELECT EXISTS (SELECT 1 FROM ${t} WHERE ${kind === 'postgres' ? 'NOT terminal' : 'terminal = 0'}) AS v`;
  if (kind === 'postgres') {
    const { default: pg } = await import('pg');
    const u = new URL(store.url);
    const t = `"${u.searchParams.get('schema')}".a2a_tasks`;
    u.searchParams.delete('schema');
    const client = new pg.Client({ connectionString: u.toString() });
    await client.connect();
    const ask = async (sql) => (await client.query(sql)).rows[0].v === true;
    return { held: () => ask(held(t)), open: () => ask(open(t)), close: () => client.end() };
  }
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(pathOf(store), { readonly: true });
  const ask = (sql) => db.prepare(sql).get().v === 1;
  return {
    held: async () => ask(held('a2a_tasks INDEXED BY a2a_tasks_lease')),
    open: async () => ask(open('a2a_tasks')),
    close: async () => db.close(),
  };
}

/** recovery: a server starts on `lapsedCount` lapsed tasks; how long until all are taken over, and finished. */
async function recovery(kind) {
  const store = await lapsedTemplateStore(kind);
  try {
    const now = Date.now();
    const took = await seed(kind, store, 1, lapsedCount, {
      a2a_tasks: { lease_expires_at: String(now - 60_000) },
    });
    const total = await countOf(kind, store, `lease_owner = 'bench-dead-worker'`);
    const poll = await poller(kind, store);
    const t0 = performance.now();
    const server = await startServer('a2a-once.mjs', [
      store.url,
      ...(recoveryOptions ? [JSON.stringify({ recovery: JSON.parse(recoveryOptions) })] : []),
    ]);
    let takenAt;
    let doneAt;
    try {
      const ready = performance.now() - t0;
      while (performance.now() - t0 < 600_000) {
        if (takenAt === undefined && !(await poll.held())) takenAt = performance.now() - t0;
        if (takenAt !== undefined && !(await poll.open())) {
          doneAt = performance.now() - t0;
          break;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      const failed = await countOf(kind, store, `status_state = 'TASK_STATE_FAILED'`);
      const s = (x) => (x === undefined ? 'not in 600 s' : `${(x / 1000).toFixed(1)} s`);
      return [
        [
          kind,
          int(total),
          `${took.toFixed(0)} s`,
          s(ready),
          s(takenAt),
          s(doneAt),
          int(failed),
          takenAt !== undefined && takenAt < 10_000 ? 'PASS' : 'FALL SHORT',
        ],
      ];
    } finally {
      await poll.close();
      await server.stop();
    }
  } finally {
    await store.cleanup();
  }
}

const results = { growth: [], sweep: [], recovery: [] };
for (const kind of stores) {
  if (parts.includes('growth')) results.growth.push(...(await growth(kind)));
  if (parts.includes('sweep')) results.sweep.push(...(await sweep(kind)));
  if (parts.includes('recovery')) results.recovery.push(...(await recovery(kind)));
}

if (results.growth.length) {
  console.log('\n## Keyed SendMessage c=16 with N tasks stored, beside an empty store (target: within 10%)');
  printTable(
    [
      'store',
      'stored',
      'seeding',
      'size',
      'empty req/s',
      'full req/s',
      'full p99 ms',
      'full / empty',
      'per round',
      'target >= 0.90',
    ],
    results.growth,
  );
}
if (results.sweep.length) {
  console.log(
    '\n## Keyed SendMessage c=16 while retention sweeps expired tasks and keys (target: p99 at most 2x)',
  );
  printTable(
    [
      'store',
      'expired',
      'seeding',
      'tasks deleted',
      'keys tombstoned',
      'tasks left',
      'p99 empty',
      'p99 sweeping',
      'ratio',
      'target',
    ],
    results.sweep,
  );
}
if (results.recovery.length) {
  console.log('\n## Start-up recovery of lapsed leases (target: all taken over in under 10 s)');
  printTable(
    ['store', 'lapsed', 'seeding', 'listening', 'all taken over', 'all finished', 'failed', 'target'],
    results.recovery,
  );
}
