// Keyed SendMessage over each binding, JSON-RPC, HTTP+JSON (REST) and gRPC, side by side with @a2a-js/sdk 1.3.0
// over JSON-RPC and over its own gRPC server, in one run, on the memory store. Blocking SendMessage of the echo
// agent, a fresh message (and key) per call, every answer checked.
//
//   node bench/bindings.mjs [--duration 10] [--warmup 2] [--rounds 3] [--connections 16] [--floors]
//
// --floors adds two gRPC servers that do no A2A work (servers/raw-grpc.mjs): grpc-js answering a fixed message,
// and gRPC framing on node:http2 answering it. The "µs server CPU / call" column then shows what a gRPC call
// costs below any A2A server, and so how far above @a2a-js/sdk's gRPC server any gRPC edge on Node can be.
//
// gRPC load: lib/grpc-load.mjs, `connections` channels each on its own HTTP/2 connection, one call in flight on
// each (the shape autocannon gives the HTTP rows). Never exits non-zero for a missed target.
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
  median,
} from './lib/harness.mjs';

const JS_JSONRPC = '@a2a-js/sdk JSON-RPC';
const JS_GRPC = '@a2a-js/sdk gRPC';
const ONCE_JSONRPC = 'a2a-once keyed JSON-RPC';
const ONCE_REST = 'a2a-once keyed REST';
const ONCE_GRPC = 'a2a-once keyed gRPC';
const ONCE_GRPC_UNKEYED = 'a2a-once unkeyed gRPC';
const FLOORS = process.argv.includes('--floors');
const TARGETS = [
  ...(FLOORS
    ? [
        { name: 'floor: grpc-js, fixed answer', script: 'raw-grpc.mjs', args: ['grpc-js'], check: 'task' },
        { name: 'floor: node:http2, fixed answer', script: 'raw-grpc.mjs', args: ['http2'], check: 'task' },
      ]
    : []),
  { name: JS_JSONRPC, script: 'a2a-js.mjs', check: 'task' },
  { name: JS_GRPC, script: 'a2a-js-grpc.mjs', check: 'task' },
  { name: ONCE_JSONRPC, script: 'a2a-once.mjs', args: ['memory'], check: 'task', keyed: true },
  { name: ONCE_REST, script: 'a2a-once.mjs', args: ['memory'], check: 'task', keyed: true, binding: 'rest' },
  { name: ONCE_GRPC, script: 'a2a-once.mjs', args: ['memory', 'grpc'], check: 'task', keyed: true },
  { name: ONCE_GRPC_UNKEYED, script: 'a2a-once.mjs', args: ['memory', 'grpc'], check: 'task' },
];

const opts = benchOptions(process.argv.slice(2).filter((a) => a !== '--floors'));
console.log('# Keyed SendMessage per binding (blocking, echo agent, memory store)');
console.log(describeMethod(opts));
loadWarning();

const runs = await measureRounds(TARGETS, opts);

const s = new Map([...runs].map(([name, rs]) => [name, summarize(rs)]));
console.log('');
printTable(
  [
    'target',
    'req/s (median)',
    'range',
    'p50 ms',
    'p99 ms',
    'µs server CPU / call',
    'other CPU (max)',
    'checked',
    'failed',
  ],
  [...s].map(([name, x]) => [
    name,
    int(x.rps),
    `${int(x.min)}–${int(x.max)}`,
    ms(x.p50),
    ms(x.p99),
    // The server's own CPU time per answered call, median over the rounds: steadier than req/s on a busy machine.
    int(median(runs.get(name).map((r) => (r.serverCpu / r.rps) * 1e6))),
    x.otherCpu.toFixed(2),
    int(x.requests),
    int(x.failed),
  ]),
);

const verdict = (ok) => (ok ? 'PASS' : 'FALL SHORT');
const row = (label, a, b, target) => {
  const r = perRoundRatios(runs, a, b);
  return [
    label,
    r.median.toFixed(2),
    r.each,
    ratio(s.get(a).rps, s.get(b).rps),
    target === undefined ? '' : `>= ${target.toFixed(2)}  ${verdict(r.median >= target)}`,
  ];
};
console.log('');
printTable(
  ['ratio', 'median per round', 'per round', 'of medians', 'target'],
  [
    row('a2a-once keyed gRPC / @a2a-js gRPC', ONCE_GRPC, JS_GRPC, 3),
    row('a2a-once keyed JSON-RPC / @a2a-js JSON-RPC', ONCE_JSONRPC, JS_JSONRPC, 3),
    row('a2a-once keyed REST / @a2a-js JSON-RPC', ONCE_REST, JS_JSONRPC),
    row('a2a-once keyed gRPC / keyed JSON-RPC', ONCE_GRPC, ONCE_JSONRPC),
    row('a2a-once keyed / unkeyed gRPC', ONCE_GRPC, ONCE_GRPC_UNKEYED),
    row('@a2a-js gRPC / @a2a-js JSON-RPC', JS_GRPC, JS_JSONRPC),
  ],
);

if (!printFailures(s)) console.log('\nThis run is INVALID: some responses failed (see above).');
