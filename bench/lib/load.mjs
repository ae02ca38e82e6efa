// The load generator, run as its own process (pinned to CPU 1 by the harness): autocannon, one request in flight
// per connection, a fresh SendMessage body (new messageId, and a new key when keyed) for every request, and every
// response checked. Prints one JSON line: { rps, p50, p99, checked, failures, ... }.
//
// argv[2]: JSON { url, connections, warmup, duration, keyed, check: 'raw' | 'task', method?: 'send' | 'get',
//   binding?: 'jsonrpc' | 'rest', headers?: { name: value } (sent with every request, e.g. authorization) }
// method 'get': first creates 256 tasks with (keyed) SendMessage, then measures GetTask of those tasks, in turn.
// binding 'rest' (send only): POST /message:send with the bare SendMessageRequest, answered with the bare
// SendMessageResponse ({ task }), as the HTTP+JSON binding has it.
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';

const cfg = JSON.parse(process.argv[2]);
// stdin is the harness's pipe: when it closes, the harness died and this run is pointless.
process.stdin
  .on('end', () => process.exit(1))
  .on('error', () => process.exit(1))
  .resume();

// 29 characters: the a2a-js response then has the 562 bytes of the reference runs (a2a-js-facts.md B1).
const TEXT = 'hello from the a2a benchmark!';
const { mintKey, IDEMPOTENCY_METADATA_KEY, IDEMPOTENCY_EXTENSION_URI } = cfg.keyed
  ? await import('../../dist/idempotency/index.js')
  : {};

let rpcId = 0;
const GET = cfg.method === 'get';
const REST = cfg.binding === 'rest';
if (REST && GET) throw new Error('the REST binding is measured for SendMessage only');
// String templates rather than JSON.stringify keep the load generator's cost per request small and equal.
function sendBody() {
  if (REST) return restSendBody();
  const head = `{"jsonrpc":"2.0","id":${++rpcId},"method":"SendMessage","params":{"message":{"messageId":"${randomUUID()}","role":"ROLE_USER","parts":[{"text":"${TEXT}"}]`;
  if (!cfg.keyed) return `${head}}}}`;
  return `${head},"metadata":{"${IDEMPOTENCY_METADATA_KEY}":"${mintKey()}"},"extensions":["${IDEMPOTENCY_EXTENSION_URI}"]}}}`;
}

function restSendBody() {
  const head = `{"message":{"messageId":"${randomUUID()}","role":"ROLE_USER","parts":[{"text":"${TEXT}"}]`;
  if (!cfg.keyed) return `${head}}}`;
  return `${head},"metadata":{"${IDEMPOTENCY_METADATA_KEY}":"${mintKey()}"},"extensions":["${IDEMPOTENCY_EXTENSION_URI}"]}}`;
}

/** Creates the tasks a GetTask run reads: 256 sends, 16 at a time, each checked. */
async function seedTasks() {
  const ids = [];
  for (let batch = 0; batch < 16; batch++) {
    const got = await Promise.all(
      Array.from({ length: 16 }, async () => {
        const res = await fetch(cfg.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...cfg.headers },
          body: sendBody(),
        });
        const id = (await res.json()).result?.task?.id;
        if (typeof id !== 'string') throw new Error(`seeding a task failed: HTTP ${res.status}`);
        return id;
      }),
    );
    ids.push(...got);
  }
  return ids;
}
const taskIds = GET ? await seedTasks() : [];
let nextTask = 0;
function body() {
  if (!GET) return sendBody();
  const id = taskIds[nextTask++ % taskIds.length];
  return `{"jsonrpc":"2.0","id":${++rpcId},"method":"GetTask","params":{"id":"${id}"}}`;
}

// Failures by reason, with the first body seen for each.
const failures = new Map();
let checked = 0;
let notCompleted = 0;
function fail(reason, sample) {
  const f = failures.get(reason);
  if (f) f.count++;
  else failures.set(reason, { reason, count: 1, sample });
}

function onResponse(status, text) {
  checked++;
  if (status !== 200) return fail(`HTTP ${status}`, text);
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    return fail('response is not JSON', text);
  }
  if (!REST && json.error !== undefined) return fail(`JSON-RPC error ${json.error?.code}`, text);
  if (!REST && json.result === undefined) return fail('no JSON-RPC result', text);
  // A blocking send of the echo agent must answer with the finished task: anything else is a different workload.
  // GetTask answers with the task itself.
  const task = REST ? json.task : GET ? json.result : json.result.task;
  if (cfg.check === 'task' && task?.status?.state !== 'TASK_STATE_COMPLETED') {
    notCompleted++;
    fail('task not COMPLETED in the response', text);
  }
}

// Latency histogram in 10 µs buckets up to 10 s: autocannon 8's own histogram has 1 ms resolution, too coarse here.
const BUCKET_US = 10;
const hist = new Uint32Array(1_000_001);
let recording = false;
let recorded = 0;
function setupClient(client) {
  client.on('response', (_status, _bytes, latencyMs) => {
    if (!recording) return;
    hist[Math.min(hist.length - 1, Math.floor((latencyMs * 1000) / BUCKET_US))]++;
    recorded++;
  });
}
function percentile(p) {
  const want = Math.ceil((p / 100) * recorded);
  let seen = 0;
  for (let i = 0; i < hist.length; i++) {
    seen += hist[i];
    if (seen >= want) return ((i + 1) * BUCKET_US) / 1000; // bucket upper edge, ms
  }
  return NaN;
}

function run(seconds) {
  return autocannon({
    url: cfg.url,
    connections: cfg.connections,
    pipelining: 1,
    duration: seconds,
    timeout: 10,
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...cfg.headers },
    setupClient,
    requests: [
      {
        method: 'POST',
        path: REST ? '/message:send' : '/',
        setupRequest: (req) => ({ ...req, body: body() }),
        onResponse,
      },
    ],
  });
}

await run(cfg.warmup);
recording = true;
const r = await run(cfg.duration);
recording = false;

console.log(
  JSON.stringify({
    rps: r.requests.total / r.duration,
    p50: percentile(50),
    p99: percentile(99),
    measured: r.requests.total,
    seconds: r.duration,
    checked,
    notCompleted,
    loadCpuSeconds: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
    failures: [
      ...failures.values(),
      ...(r.errors ? [{ reason: 'socket errors', count: r.errors, sample: '' }] : []),
      ...(r.timeouts ? [{ reason: 'timeouts', count: r.timeouts, sample: '' }] : []),
    ],
  }),
);
process.exit(0);
