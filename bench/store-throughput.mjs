// Keyed SendMessage (at 16, 1 and 64 connections) and GetTask throughput of a2a-once per store: memory, SQLite (a
// file in a fresh temp dir), PostgreSQL (a fresh schema on the local server) and Redis (a fresh key prefix on the
// local server, deleted after), in one run, as ratios to the
// in-memory figure and to @a2a-js/sdk 1.3.0 serving the same echo agent from its in-memory store (measured in the
// same rounds).
//
//   node bench/store-throughput.mjs [--duration 10] [--warmup 2] [--rounds 3] [--connections 16]
//                                   [--stores memory,sqlite,postgres,redis] [--rows send,get,c1,c64]
//   BENCH_PG_URL=postgres://postgres@127.0.0.1:5432/test (default)
//   BENCH_REDIS_URL=redis://127.0.0.1:6379/0 (default)
//
// PostgreSQL itself is not pinned: its backends compete with the server and the load generator for the 2 cores.
import { fsyncFloor } from './lib/fsync-floor.mjs';
import {
  benchOptions,
  describeMethod,
  int,
  loadWarning,
  makeStore,
  median,
  measure,
  ms,
  pgQuery,
  printFailures,
  redisUp,
  printTable,
  ratio,
  summarize,
} from './lib/harness.mjs';

const opts = benchOptions(
  process.argv
    .slice(2)
    .filter(
      (a, i, all) => !['--stores', '--rows'].includes(a) && !['--stores', '--rows'].includes(all[i - 1]),
    ),
);
const PG = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
// The -normal / -async rows are not defaults: they show how much of the durable stores' cost is the commit fsync.
const wanted = (() => {
  const i = process.argv.indexOf('--stores');
  return i >= 0 ? process.argv[i + 1].split(',') : undefined;
})();
const pgUp = await pgQuery(PG, 'SELECT 1');
const REDIS = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/0';
const redisAnswers = await redisUp(REDIS);
const stores = [
  'a2a-js',
  'memory',
  'sqlite',
  'sqlite-normal',
  ...(pgUp ? ['postgres', 'postgres-async'] : []),
  ...(redisAnswers ? ['redis'] : []),
].filter((k) => k === 'a2a-js' || wanted === undefined || wanted.includes(k));

// The workloads, each measured on every store in the same rounds: keyed SendMessage at the chosen concurrency
// (the headline row), GetTask of finished tasks at that concurrency, and SendMessage at 1 and at 64 connections.
const ROWS = {
  send: { label: `SendMessage c=${opts.connections}`, method: 'send', connections: opts.connections },
  get: { label: `GetTask c=${opts.connections}`, method: 'get', connections: opts.connections },
  c1: { label: 'SendMessage c=1', method: 'send', connections: 1 },
  c64: { label: 'SendMessage c=64', method: 'send', connections: 64 },
};
const rowNames = (() => {
  const i = process.argv.indexOf('--rows');
  const names = i >= 0 ? process.argv[i + 1].split(',') : Object.keys(ROWS);
  for (const n of names)
    if (!ROWS[n]) throw new Error(`--rows: unknown row ${n} (${Object.keys(ROWS).join(', ')})`);
  return names;
})();

console.log('# Keyed SendMessage and GetTask per store (a2a-once, echo agent)');
console.log(describeMethod(opts));
if (!pgUp) console.log(`PostgreSQL at ${PG} is unreachable: skipped.`);
if (!redisAnswers) console.log(`Redis at ${REDIS} is unreachable: skipped.`);
loadWarning();

const runs = new Map(rowNames.flatMap((row) => stores.map((k) => [`${row}/${k}`, []])));
// The floor of a durable SQLite send at one connection, two fdatasyncs of the disk its files are on, measured
// right after each round's SQLite c=1 measurement (lib/fsync-floor.mjs).
const floors = [];
for (let round = 1; round <= opts.rounds; round++) {
  for (const row of rowNames) {
    const w = ROWS[row];
    for (const kind of stores) {
      // A fresh database per measurement, like the fresh server: no run inherits another's rows.
      const store = kind === 'a2a-js' ? { url: '', cleanup: async () => {} } : await makeStore(kind);
      try {
        const r = await measure(
          kind === 'a2a-js'
            ? { script: 'a2a-js.mjs', check: 'task', method: w.method }
            : { script: 'a2a-once.mjs', args: [store.url], check: 'task', keyed: true, method: w.method },
          { ...opts, connections: w.connections },
        );
        runs.get(`${row}/${kind}`).push(r);
        if (row === 'c1' && kind === 'sqlite') floors.push(fsyncFloor());
        const bad = r.failures.reduce((a, f) => a + f.count, 0);
        console.log(
          `  round ${round}/${opts.rounds} ${w.label.padEnd(18)} ${kind.padEnd(14)} ${int(r.rps).padStart(7)} req/s  p50 ${ms(r.p50)}  p99 ${ms(r.p99)} ms  other CPU ${r.otherCpu.toFixed(2)}${bad ? `  ${bad} FAILED` : ''}`,
        );
      } finally {
        await store.cleanup();
      }
    }
  }
}

const s = new Map([...runs].map(([k, rs]) => [k, summarize(rs)]));
// The VM's speed drifts within minutes for every server alike: a ratio taken within a round, from measurements a
// few seconds apart, is steadier than a ratio of medians. Both are printed; the verdict reads the per-round one.
const perRound = (row, k, base) =>
  median(runs.get(`${row}/${k}`).map((r, i) => r.rps / runs.get(`${row}/${base}`)[i].rps));
for (const row of rowNames) {
  const mem = s.get(`${row}/memory`) ?? s.get(`${row}/a2a-js`);
  const js = s.get(`${row}/a2a-js`);
  console.log(`\n## ${ROWS[row].label}`);
  printTable(
    [
      'store',
      'req/s (median)',
      'range',
      'p50 ms',
      'p99 ms',
      '/ memory',
      '/ @a2a-js',
      '/ @a2a-js per round',
      'other CPU (max)',
      'checked',
      'failed',
    ],
    stores.map((k) => {
      const x = s.get(`${row}/${k}`);
      return [
        k,
        int(x.rps),
        `${int(x.min)}–${int(x.max)}`,
        ms(x.p50),
        ms(x.p99),
        ratio(x.rps, mem.rps),
        ratio(x.rps, js.rps),
        perRound(row, k, 'a2a-js').toFixed(2),
        x.otherCpu.toFixed(2),
        int(x.requests),
        int(x.failed),
      ];
    }),
  );
}
// The targets of the durable stores (docs/performance.md), on the headline row, durability at its defaults.
if (rowNames.includes('send')) {
  console.log('');
  for (const [k, want] of [
    ['sqlite', 1.5],
    ['postgres', 1.0],
    ['redis', 2.0],
  ]) {
    if (!stores.includes(k)) continue;
    const r = perRound('send', k, 'a2a-js');
    const p99 = s.get(`send/${k}`).p99;
    console.log(
      `target ${k}: / @a2a-js per round ${r.toFixed(2)} (want >= ${want.toFixed(2)}) ${r >= want ? 'PASS' : 'FALL SHORT'}; ` +
        `p99 ${ms(p99)} ms (want < 25) ${p99 < 25 ? 'PASS' : 'FALL SHORT'}`,
    );
  }
}
console.log('');
console.log('a2a-js: @a2a-js/sdk 1.3.0, in-memory store, the same echo agent, unkeyed (it has no keys).');
console.log('sqlite-normal: SQLite with synchronous=NORMAL (the default is FULL: an fsync per commit).');
console.log(
  'postgres-async: synchronous_commit=off for the bench sessions (the default flushes WAL per commit).',
);
console.log('For postgres, "other CPU" includes the PostgreSQL backends doing the work.');
if (!printFailures(s)) console.log('\nThis run is INVALID: some responses failed (see above).');
if (floors.length > 0) {
  const sqliteC1 = s.get('c1/sqlite');
  const two = median(floors.map((f) => f.twoMs));
  const over = sqliteC1.p50 - two;
  console.log(
    `\nSQLite at one connection: send p50 ${ms(sqliteC1.p50)} ms; two fdatasyncs of the same disk p50 ${ms(two)} ms ` +
      `(one ${ms(median(floors.map((f) => f.oneMs)))} ms), measured after each round's SQLite c=1 run: ` +
      `${ms(over)} ms above the floor (want <= 0.30) ${over <= 0.3 ? 'PASS' : 'FALL SHORT'}`,
  );
}
