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
  measureRounds,
  ms,
  perRoundRatios,
  printFailures,
  printTable,
  ratio,
  summarize,
  loadWarning,
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

const runs = await measureRounds(TARGETS, opts);

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
const perRound = (a, b) => perRoundRatios(runs, a, b).median;
const keyedVsJs = perRound('a2a-once keyed', '@a2a-js/sdk 1.3.0');
const keyedVsUnkeyed = perRound('a2a-once keyed', 'a2a-once unkeyed');
const unkeyedVsJs = perRound('a2a-once unkeyed', '@a2a-js/sdk 1.3.0');
const roundRatios = (a, b) => perRoundRatios(runs, a, b).each;
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
