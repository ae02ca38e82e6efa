// SendMessage throughput and latency: raw node:http, @a2a-js/sdk 1.3.0, a2a-once unkeyed and
// a2a-once keyed, side by side in one run. Blocking JSON-RPC SendMessage, fresh messageId (and key) per request.
//
//   node bench/send-message.mjs [--duration 10] [--warmup 2] [--rounds 3] [--connections 16]
//
// Never exits non-zero for a missed target: these are figures to read, not assertions.
import {
  benchOptions,
  describeMethod,
  int,
  measure,
  ms,
  printFailures,
  printTable,
  ratio,
  summarize,
  loadWarning,
  median,
} from './lib/harness.mjs';

const TARGETS = [
  { name: 'raw node:http', script: 'raw.mjs', check: 'raw' },
  { name: '@a2a-js/sdk 1.3.0', script: 'a2a-js.mjs', check: 'task' },
  { name: 'a2a-once unkeyed', script: 'a2a-once.mjs', args: ['memory'], check: 'task' },
  { name: 'a2a-once keyed', script: 'a2a-once.mjs', args: ['memory'], check: 'task', keyed: true },
];

const opts = benchOptions();
console.log('# SendMessage (JSON-RPC, blocking, echo agent)');
console.log(describeMethod(opts));
loadWarning();

// Rounds interleave the targets, so a slow spell on the machine hits every target rather than one, and every
// other round runs them in reverse order, so a machine that drifts faster or slower during a round favours no
// target. Each round also gives its own ratios (targets measured minutes apart, not the whole run apart).
const runs = new Map(TARGETS.map((t) => [t.name, []]));
for (let round = 1; round <= opts.rounds; round++) {
  for (const t of round % 2 === 1 ? TARGETS : [...TARGETS].reverse()) {
    const r = await measure(t, opts);
    runs.get(t.name).push(r);
    const bad = r.failures.reduce((a, f) => a + f.count, 0);
    console.log(
      `  round ${round}/${opts.rounds} ${t.name.padEnd(18)} ${int(r.rps).padStart(7)} req/s  p50 ${ms(r.p50)}  p99 ${ms(r.p99)} ms  CPU server ${r.serverCpu.toFixed(2)} load ${r.loadCpu.toFixed(2)} other ${r.otherCpu.toFixed(2)}${bad ? `  ${bad} FAILED` : ''}`,
    );
  }
}

const s = new Map([...runs].map(([name, rs]) => [name, summarize(rs)]));
const raw = s.get('raw node:http');
const js = s.get('@a2a-js/sdk 1.3.0');
const unkeyed = s.get('a2a-once unkeyed');
const keyed = s.get('a2a-once keyed');

console.log('');
printTable(
  ['target', 'req/s (median)', 'range', 'p50 ms', 'p99 ms', '/ raw', 'other CPU (max)', 'checked', 'failed'],
  [...s].map(([name, x]) => [
    name,
    int(x.rps),
    `${int(x.min)}–${int(x.max)}`,
    ms(x.p50),
    ms(x.p99),
    ratio(x.rps, raw.rps),
    x.otherCpu.toFixed(2),
    int(x.requests),
    int(x.failed),
  ]),
);

const verdict = (ok) => (ok ? 'PASS' : 'FALL SHORT');
// The verdict uses the median of the per-round ratios: on a shared VM whose speed drifts by 15% or more between
// rounds, a ratio of two measurements taken seconds apart is steadier than a ratio of two medians.
const perRound = (a, b) => median(runs.get(a).map((r, i) => r.rps / runs.get(b)[i].rps));
const keyedVsJs = perRound('a2a-once keyed', '@a2a-js/sdk 1.3.0');
const keyedVsUnkeyed = perRound('a2a-once keyed', 'a2a-once unkeyed');
const unkeyedVsJs = perRound('a2a-once unkeyed', '@a2a-js/sdk 1.3.0');
const roundRatios = (a, b) =>
  runs
    .get(a)
    .map((r, i) => (r.rps / runs.get(b)[i].rps).toFixed(2))
    .join(' ');
console.log('');
printTable(
  ['ratio', 'median per round', 'per round', 'of medians', 'target'],
  [
    [
      'a2a-once keyed / @a2a-js',
      keyedVsJs.toFixed(2),
      roundRatios('a2a-once keyed', '@a2a-js/sdk 1.3.0'),
      ratio(keyed.rps, js.rps),
      `>= 3.00  ${verdict(keyedVsJs >= 3)}`,
    ],
    [
      'a2a-once unkeyed / @a2a-js',
      unkeyedVsJs.toFixed(2),
      roundRatios('a2a-once unkeyed', '@a2a-js/sdk 1.3.0'),
      ratio(unkeyed.rps, js.rps),
      '',
    ],
    [
      'a2a-once keyed / unkeyed',
      keyedVsUnkeyed.toFixed(2),
      roundRatios('a2a-once keyed', 'a2a-once unkeyed'),
      ratio(keyed.rps, unkeyed.rps),
      `>= 0.90  ${verdict(keyedVsUnkeyed >= 0.9)}`,
    ],
    ['@a2a-js / raw', '', '', ratio(js.rps, raw.rps), ''],
    ['a2a-once unkeyed / raw', '', '', ratio(unkeyed.rps, raw.rps), ''],
    ['a2a-once keyed / raw', '', '', ratio(keyed.rps, raw.rps), ''],
  ],
);

if (!printFailures(s)) console.log('\nThis run is INVALID: some responses failed (see above).');
