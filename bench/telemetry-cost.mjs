// What telemetry costs when nobody collects it: a2a-once keyed SendMessage (memory store) without the `telemetry`
// option, and with `telemetry: openTelemetry()` but no OpenTelemetry SDK registered (the API's no-op tracer), side
// by side in one run, rounds interleaved like send-message.mjs (docs/guides/observability.md).
//
//   node bench/telemetry-cost.mjs [--duration 10] [--warmup 2] [--rounds 3] [--connections 16]
//
// Never exits non-zero: these are figures to read, not assertions.
import {
  benchOptions,
  describeMethod,
  int,
  measure,
  median,
  ms,
  printFailures,
  printTable,
  summarize,
  loadWarning,
} from './lib/harness.mjs';

const OFF = 'keyed, no telemetry';
const NOOP = 'keyed, otel, no SDK';
const TARGETS = [
  { name: OFF, script: 'a2a-once.mjs', args: ['memory'], check: 'task', keyed: true },
  { name: NOOP, script: 'a2a-once.mjs', args: ['memory', 'otel'], check: 'task', keyed: true },
];

const opts = benchOptions();
console.log('# Telemetry with no tracer registered (JSON-RPC SendMessage, keyed, memory store)');
console.log(describeMethod(opts));
loadWarning();

const runs = new Map(TARGETS.map((t) => [t.name, []]));
for (let round = 1; round <= opts.rounds; round++) {
  for (const t of round % 2 === 1 ? TARGETS : [...TARGETS].reverse()) {
    const r = await measure(t, opts);
    runs.get(t.name).push(r);
    console.log(
      `  round ${round}/${opts.rounds} ${t.name.padEnd(20)} ${int(r.rps).padStart(7)} req/s  p50 ${ms(r.p50)}  p99 ${ms(r.p99)} ms`,
    );
  }
}
const s = new Map([...runs].map(([name, rs]) => [name, summarize(rs)]));
console.log('');
printTable(
  ['target', 'req/s (median)', 'range', 'p50 ms', 'p99 ms'],
  [...s].map(([name, x]) => [name, int(x.rps), `${int(x.min)}–${int(x.max)}`, ms(x.p50), ms(x.p99)]),
);
const perRound = runs.get(NOOP).map((r, i) => r.rps / runs.get(OFF)[i].rps);
console.log(
  `\notel without an SDK / no telemetry: ${median(perRound).toFixed(2)} (median per round; rounds ${perRound
    .map((x) => x.toFixed(2))
    .join(' ')})`,
);
if (!printFailures(s)) console.log('\nThis run is INVALID: some responses failed (see above).');
