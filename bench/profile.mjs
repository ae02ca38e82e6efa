// Where a server spends its CPU under SendMessage load: runs it with `node --cpu-prof`, drives it like
// send-message.mjs does, then prints the top self-time functions and the share per area, from the .cpuprofile.
//
//   node bench/profile.mjs [--target a2a-once|a2a-js|raw] [--store memory|sqlite|postgres] [--unkeyed]
//                          [--otel] [--bearer] [--grpc] [--duration 5] [--warmup 2] [--connections 16] [--top 25]
//
// Default: a2a-once, memory store, keyed. Only the measured window counts: start-up, warm-up and shutdown
// samples are dropped by time, and idle samples are left out of the percentages.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  benchOptions,
  BENCH_DIR,
  int,
  makeStore,
  printTable,
  runLoad,
  startServer,
  describeMethod,
} from './lib/harness.mjs';

const argv = process.argv.slice(2);
const opts = benchOptions(argv, {
  duration: 5,
  warmup: 2,
  rounds: 1,
  top: 25,
  target: 'a2a-once',
  store: 'memory',
});
const keyed = opts.target === 'a2a-once' && !argv.includes('--unkeyed');
// --otel: with `telemetry: openTelemetry()` and no SDK registered, to see what the no-op path costs.
const otel = opts.target === 'a2a-once' && argv.includes('--otel');
// --bearer: `bearerTokens` on, every request carrying the token (servers/a2a-once.mjs's `bearer` mode).
const bearer = opts.target === 'a2a-once' && argv.includes('--bearer');
// --grpc: the gRPC binding (a2a-once's serveGrpc, @a2a-js/sdk's grpcService), driven by lib/grpc-load.mjs.
const grpc = argv.includes('--grpc');
const SCRIPTS = grpc
  ? { 'a2a-once': 'a2a-once.mjs', 'a2a-js': 'a2a-js-grpc.mjs' }
  : { 'a2a-once': 'a2a-once.mjs', 'a2a-js': 'a2a-js.mjs', raw: 'raw.mjs' };
if (!SCRIPTS[opts.target]) throw new Error(`--target must be one of ${Object.keys(SCRIPTS).join(', ')}`);

/** The token the `bearer` mode of servers/a2a-once.mjs accepts. */
const BENCH_TOKEN = 'bench-token-0123456789abcdef0123456789abcdef';

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-prof-'));
const store = opts.target === 'a2a-once' ? await makeStore(opts.store) : undefined;
let profile;
try {
  const server = await startServer(
    SCRIPTS[opts.target],
    store ? [store.url, ...(otel ? ['otel'] : bearer ? ['bearer'] : grpc ? ['grpc'] : [])] : [],
    ['--cpu-prof', `--cpu-prof-dir=${dir}`],
  );
  let r;
  try {
    r = await runLoad({
      url: server.url,
      connections: opts.connections,
      warmup: opts.warmup,
      duration: opts.duration,
      keyed,
      check: opts.target === 'raw' ? 'raw' : 'task',
      ...(bearer ? { headers: { authorization: `Bearer ${BENCH_TOKEN}` } } : {}),
    });
  } finally {
    await server.stop(); // SIGTERM: the server exits normally, which is when node writes the profile
  }
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error('no .cpuprofile written (did the server exit on SIGTERM?)');
  profile = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  console.log(
    `# CPU profile: ${opts.target}${grpc ? ' gRPC' : ''}${store ? ` (${opts.store}, ${keyed ? 'keyed' : 'unkeyed'}${otel ? ', otel without an SDK' : ''})` : ''} under SendMessage load`,
  );
  console.log(describeMethod(opts).replace(/, median of .*? rounds/, ''));
  const bad = r.failures.reduce((a, f) => a + f.count, 0);
  console.log(
    `load: ${int(r.rps)} req/s, ${int(r.checked)} responses checked, ${bad} failed (profiling slows the server)`,
  );
  // The window: from the end of the warm-up to the end of the measured run, relative to process start.
  report(
    profile,
    (server.readyMs + opts.warmup * 1000 + 300) * 1000,
    (server.readyMs + (opts.warmup + opts.duration) * 1000) * 1000,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
  await store?.cleanup();
}

/** Self time per function and per area, within [fromUs, toUs] after the profile's start. */
function report(p, fromUs, toUs) {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map(); // node id -> µs
  let t = 0;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i];
    // Each delta is the time since the previous sample: charge it to this sample's node.
    if (t >= fromUs && t <= toUs) self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + p.timeDeltas[i]);
  }
  const parent = new Map();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const fns = new Map();
  const areas = new Map();
  const owners = new Map();
  let busy = 0;
  for (const [id, us] of self) {
    const cf = byId.get(id).callFrame;
    if (cf.functionName === '(idle)') continue;
    busy += us;
    const key = `${cf.functionName || '(anonymous)'}  ${where(cf)}`;
    fns.set(key, (fns.get(key) ?? 0) + us);
    const a = area(cf);
    areas.set(a, (areas.get(a) ?? 0) + us);
    // Node internals and natives are charged to the nearest library or a2a-once frame that called them.
    let o = id;
    while (o !== undefined && !isCode(byId.get(o).callFrame.url)) o = parent.get(o);
    const ocf = o === undefined ? undefined : byId.get(o).callFrame;
    const okey = ocf
      ? `${ocf.functionName || '(anonymous)'}  ${where(ocf)}`
      : '(no library caller: node/GC/program)';
    owners.set(okey, (owners.get(okey) ?? 0) + us);
  }
  const pct = (us) => `${((100 * us) / busy).toFixed(1)}%`;
  const top = (m, n) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
  console.log(`\n${(busy / 1e6).toFixed(2)} s of busy CPU in the window\n\nShare of self time per area:`);
  printTable(
    ['area', 'self', 'share'],
    top(areas, 30).map(([a, us]) => [a, `${(us / 1000).toFixed(0)} ms`, pct(us)]),
  );
  console.log(`\nTop ${opts.top} functions by self time:`);
  printTable(
    ['function  location', 'self', 'share'],
    top(fns, opts.top).map(([f, us]) => [f, `${(us / 1000).toFixed(0)} ms`, pct(us)]),
  );
  console.log(
    `\nTop ${opts.top} a2a-once / library functions, charged with the node internals and natives they call:`,
  );
  printTable(
    ['function  location', 'self + callees in node', 'share'],
    top(owners, opts.top).map(([f, us]) => [f, `${(us / 1000).toFixed(0)} ms`, pct(us)]),
  );
}

/** A frame of a2a-once (dist/), of a package or of the bench servers, as opposed to node's own code. */
function isCode(url) {
  return url.startsWith('file://');
}

function where(cf) {
  if (!cf.url) return '(native)';
  const url = cf.url.replace(`file://${BENCH_DIR.replace(/\/bench$/, '')}/`, '');
  return `${url.replace(/^.*node_modules\//, '')}:${cf.lineNumber + 1}`;
}

function area(cf) {
  const u = cf.url;
  if (!u) return cf.functionName.startsWith('(') ? cf.functionName : 'native / builtins';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u);
  if (m) return `pkg ${m[1]}`;
  const d = /\/dist\/(.+)$/.exec(u);
  if (d) return `a2a-once dist/${d[1].split('/').slice(0, -1).join('/') || d[1]}`;
  if (u.includes('deps/undici')) return 'node undici (web Request/Response/Headers)';
  if (u.startsWith('node:')) return `node ${u.replace(/^node:(internal\/)?/, '').split('/')[0]}`;
  return u.replace(/^.*\/bench\//, 'bench/');
}
