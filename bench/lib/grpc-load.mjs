// The gRPC load generator, run as its own process (pinned to CPU 1 by the harness), with the same shape as
// load.mjs: `connections` HTTP/2 connections, one SendMessage in flight on each, a fresh message (new messageId,
// and a new key when keyed) for every call, and every answer decoded and checked. Prints one JSON line:
// { rps, p50, p99, checked, failures, ... }.
//
// argv[2]: JSON { url: 'grpc://host:port', connections, warmup, duration, keyed, client?: 'http2' | 'grpc-js' }
// The default client speaks gRPC's framing on node:http2 itself (a 5-byte length prefix, `grpc-status` in the
// trailers): grpc-js's own client costs more CPU per call than the servers measured, so with it the load
// generator, not the server, would set the figure. `client: 'grpc-js'` measures with grpc-js instead.
// Messages are written and read with the repository's own codec (dist/protocol/grpc), the same for every server
// measured, so the load generator's cost per call is equal whichever server answers.
import { connect, constants as h2 } from 'node:http2';
import { credentials, Client, Metadata, status as grpcStatus } from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';
import { encodeProto, decodeProto } from '../../dist/protocol/grpc/index.js';

const cfg = JSON.parse(process.argv[2]);
process.stdin
  .on('end', () => process.exit(1))
  .on('error', () => process.exit(1))
  .resume();

const TEXT = 'hello from the a2a benchmark!';
const { mintKey, IDEMPOTENCY_METADATA_KEY, IDEMPOTENCY_EXTENSION_URI } = cfg.keyed
  ? await import('../../dist/idempotency/index.js')
  : {};
const target = cfg.url.replace(/^grpc:\/\//, '');
const PATH = '/lf.a2a.v1.A2AService/SendMessage';

function request() {
  const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: TEXT }] };
  if (cfg.keyed) {
    message.metadata = { [IDEMPOTENCY_METADATA_KEY]: mintKey() };
    message.extensions = [IDEMPOTENCY_EXTENSION_URI];
  }
  return { message };
}
const serialize = (value) => Buffer.from(encodeProto('SendMessageRequest', value));
const deserialize = (bytes) => bytes; // decoded in the check, so a decoding error counts as a failure

// Failures by reason, with the first sample seen for each.
const failures = new Map();
let checked = 0;
function fail(reason, sample) {
  const f = failures.get(reason);
  if (f) f.count++;
  else failures.set(reason, { reason, count: 1, sample });
}
function check(err, bytes) {
  checked++;
  if (err) return fail(`gRPC ${grpcStatus[err.code] ?? err.code}`, err.details);
  let answer;
  try {
    answer = decodeProto('SendMessageResponse', bytes);
  } catch (e) {
    return fail('answer is not a SendMessageResponse', String(e));
  }
  if (answer?.task?.status?.state !== 'TASK_STATE_COMPLETED')
    fail('task not COMPLETED in the answer', JSON.stringify(answer).slice(0, 300));
}

const BUCKET_US = 10;
const hist = new Uint32Array(1_000_001);
let recording = false;
let recorded = 0;
let measured = 0;

/** One unary call on an HTTP/2 session, in gRPC's framing; calls back (err, bytes) as grpc-js does. */
function http2Call(session, message, done) {
  const stream = session.request({
    [h2.HTTP2_HEADER_METHOD]: 'POST',
    [h2.HTTP2_HEADER_PATH]: PATH,
    [h2.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
    te: 'trailers',
    'grpc-timeout': '10S',
    'a2a-version': '1.0',
  });
  const chunks = [];
  let finished = false;
  const finish = (err, bytes) => {
    if (finished) return;
    finished = true;
    done(err, bytes);
  };
  stream.on('data', (c) => chunks.push(c));
  stream.on('trailers', (trailers) => {
    const code = Number(trailers['grpc-status']);
    if (code !== 0) return finish({ code, details: decodeURIComponent(trailers['grpc-message'] ?? '') });
    const body = Buffer.concat(chunks);
    // One length-prefixed message: flag byte, 4-byte length, then the message.
    finish(null, body.subarray(5, 5 + body.readUInt32BE(1)));
  });
  stream.on('error', (e) => finish({ code: grpcStatus.UNAVAILABLE, details: String(e) }));
  stream.on('close', () =>
    finish({ code: grpcStatus.UNAVAILABLE, details: 'stream closed without trailers' }),
  );
  const frame = Buffer.allocUnsafe(5 + message.length);
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, 5);
  stream.end(frame);
}

// One connection per "connection": HTTP/2 sessions of our own, or grpc-js channels each with a local
// subchannel pool (which keeps grpc-js from sharing one HTTP/2 connection among them).
const useGrpcJs = cfg.client === 'grpc-js';
const clients = Array.from({ length: cfg.connections }, () =>
  useGrpcJs
    ? new Client(target, credentials.createInsecure(), {
        'grpc.use_local_subchannel_pool': 1,
        'grpc.max_receive_message_length': 16 * 1024 * 1024,
      })
    : connect(`http://${target}`),
);
function metadata() {
  const m = new Metadata();
  m.set('a2a-version', '1.0');
  return m;
}
function unary(client, done) {
  if (!useGrpcJs) return http2Call(client, serialize(request()), done);
  client.makeUnaryRequest(
    PATH,
    serialize,
    deserialize,
    request(),
    metadata(),
    { deadline: Date.now() + 10_000 },
    done,
  );
}

function loop(client, until) {
  return new Promise((resolve) => {
    const next = () => {
      if (performance.now() >= until) return resolve();
      const start = performance.now();
      unary(client, (err, bytes) => {
        if (recording) {
          hist[Math.min(hist.length - 1, Math.floor(((performance.now() - start) * 1000) / BUCKET_US))]++;
          recorded++;
          measured++;
          check(err, bytes);
        }
        next();
      });
    };
    next();
  });
}
async function run(seconds) {
  const until = performance.now() + seconds * 1000;
  await Promise.all(clients.map((c) => loop(c, until)));
}
function percentile(p) {
  const want = Math.ceil((p / 100) * recorded);
  let seen = 0;
  for (let i = 0; i < hist.length; i++) {
    seen += hist[i];
    if (seen >= want) return ((i + 1) * BUCKET_US) / 1000;
  }
  return NaN;
}

await run(cfg.warmup);
recording = true;
const began = performance.now();
await run(cfg.duration);
const seconds = (performance.now() - began) / 1000;
recording = false;
for (const c of clients) c.close();

console.log(
  JSON.stringify({
    rps: measured / seconds,
    p50: percentile(50),
    p99: percentile(99),
    measured,
    seconds,
    checked,
    notCompleted: failures.get('task not COMPLETED in the answer')?.count ?? 0,
    loadCpuSeconds: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
    failures: [...failures.values()],
  }),
);
process.exit(0);
