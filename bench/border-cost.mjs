// What the border costs a keyed SendMessage (memory store), side by side in one run, rounds interleaved like
// send-message.mjs:
//   - telemetry when nobody collects it: `telemetry: openTelemetry()` with no OpenTelemetry SDK registered (the
//     API's no-op tracer; docs/guides/observability.md "Cost");
//   - bearer authentication: `bearerTokens` (an opaque token, looked up by its SHA-256 digest), every request
//     carrying `Authorization: Bearer ...`;
//   - JWT bearer authentication: `jwtBearer` with a static ES256 key set, every request carrying one signed token,
//     remembered once verified (ADR 0136), and with `cache: false` (its signature checked on every request).
// Each is read as its per-round ratio to the plain keyed run.
//
//   node bench/border-cost.mjs [--duration 10] [--warmup 2] [--rounds 3] [--connections 16]
//
// Never exits non-zero: these are figures to read, not assertions.
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
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

// The token the `bearer` mode of servers/a2a-once.mjs accepts.
const BENCH_TOKEN = 'bench-token-0123456789abcdef0123456789abcdef';

const { publicKey, privateKey } = await generateKeyPair('ES256');
const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'ES256', use: 'sig' };
const jwt = await new SignJWT({ tenants: '*' })
  .setProtectedHeader({ alg: 'ES256', kid: 'bench' })
  .setIssuer('bench-issuer')
  .setAudience('bench-agent')
  .setSubject('bench')
  .setIssuedAt()
  .setExpirationTime('2h')
  .sign(privateKey);

const PLAIN = 'keyed';
const TARGETS = [
  { name: PLAIN, script: 'a2a-once.mjs', args: ['memory'], check: 'task', keyed: true },
  {
    name: 'keyed, otel, no SDK',
    script: 'a2a-once.mjs',
    args: ['memory', 'otel'],
    check: 'task',
    keyed: true,
  },
  {
    name: 'keyed, bearer token',
    script: 'a2a-once.mjs',
    args: ['memory', 'bearer'],
    check: 'task',
    keyed: true,
    headers: { authorization: `Bearer ${BENCH_TOKEN}` },
  },
  {
    name: 'keyed, JWT (ES256)',
    script: 'a2a-once.mjs',
    args: ['memory', `jwt:${JSON.stringify({ keys: [jwk] })}`],
    check: 'task',
    keyed: true,
    headers: { authorization: `Bearer ${jwt}` },
  },
  {
    name: 'keyed, JWT, cache: false',
    script: 'a2a-once.mjs',
    args: ['memory', `jwt-uncached:${JSON.stringify({ keys: [jwk] })}`],
    check: 'task',
    keyed: true,
    headers: { authorization: `Bearer ${jwt}` },
  },
];
/** The most each may lose against the plain run (the figure is a median of per-round ratios). */
const FLOORS = new Map([
  ['keyed, otel, no SDK', 0.97],
  ['keyed, bearer token', 0.95],
]);

const opts = benchOptions();
console.log(
  '# The border: telemetry with no SDK, bearer and JWT authentication (JSON-RPC SendMessage, keyed, memory)',
);
console.log(describeMethod(opts));
loadWarning();

const runs = new Map(TARGETS.map((t) => [t.name, []]));
for (let round = 1; round <= opts.rounds; round++) {
  for (const t of round % 2 === 1 ? TARGETS : [...TARGETS].reverse()) {
    const r = await measure(t, opts);
    runs.get(t.name).push(r);
    console.log(
      `  round ${round}/${opts.rounds} ${t.name.padEnd(22)} ${int(r.rps).padStart(7)} req/s  p50 ${ms(r.p50)}  p99 ${ms(r.p99)} ms  server CPU ${r.serverCpu.toFixed(2)}`,
    );
  }
}
const s = new Map([...runs].map(([name, rs]) => [name, summarize(rs)]));
console.log('');
printTable(
  ['target', 'req/s (median)', 'range', 'p50 ms', 'p99 ms', `/ ${PLAIN} (median per round)`, 'target'],
  [...s].map(([name, x]) => {
    if (name === PLAIN)
      return [name, int(x.rps), `${int(x.min)}–${int(x.max)}`, ms(x.p50), ms(x.p99), '1.00', ''];
    const perRound = runs.get(name).map((r, i) => r.rps / runs.get(PLAIN)[i].rps);
    const ratio = median(perRound);
    const floor = FLOORS.get(name);
    const verdict =
      floor === undefined ? '' : ratio >= floor ? `PASS (>= ${floor})` : `FALL SHORT (${floor})`;
    return [
      name,
      int(x.rps),
      `${int(x.min)}–${int(x.max)}`,
      ms(x.p50),
      ms(x.p99),
      `${ratio.toFixed(2)} (${perRound.map((v) => v.toFixed(2)).join(' ')})`,
      verdict,
    ];
  }),
);
if (!printFailures(s)) console.log('\nThis run is INVALID: some responses failed (see above).');
