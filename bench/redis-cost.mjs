// Redis's own time per keyed send (ADR 0133): a redis-server of its own (no persistence), the server built in
// dist/ serving the echo agent in-process (keyed SendMessage through `server.fetch`, no HTTP), and
// `INFO commandstats` reset before and read after each round: µs of the scripts (their inner commands included),
// µs of the inner commands, commands per send. With `--against DIR` (another checkout, built), the two builds
// alternate round by round against the same Redis, so the machine's load swings hit both; the last column is the
// ratio of the medians.
//
//   node bench/redis-cost.mjs [--sends 1000] [--connections 16] [--rounds 6] [--against ../other-checkout]
//   (needs npm run build, redis-server on PATH)
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createClient } from 'redis';
import { startOwnRedis } from './lib/own-redis.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const SENDS = Number(arg('sends', 1000));
const CONNECTIONS = Number(arg('connections', 16));
const ROUNDS = Number(arg('rounds', 6));
const trees = [resolve(import.meta.dirname, '..'), ...(arg('against') ? [resolve(arg('against'))] : [])];

const ownRedis = await startOwnRedis('redis-cost');
const { port } = ownRedis;
const admin = createClient({ url: `redis://127.0.0.1:${port}` });
admin.on('error', () => {});
await admin.connect();

/** One build's server on the Redis, with a send that checks its answer. */
async function setUp(tree, n) {
  const load = (path) => import(pathToFileURL(join(tree, 'dist', path)).href);
  const { createA2AServer } = await load('server/index.js');
  const { createEchoAgent } = await load('cli/agents/echo.js');
  const { openStore } = await load('store/open-store.js');
  const idem = await load('idempotency/index.js');
  const store = await openStore(`redis://127.0.0.1:${port}/0?prefix=cost${n}:`, {
    redis: { allowVolatile: true },
  });
  const agent = createEchoAgent();
  const server = createA2AServer({
    agent: agent.executor,
    card: agent.card,
    store,
    maxKeysPerScope: 10_000_000,
  });
  let id = 0;
  const send = async () => {
    const body = `{"jsonrpc":"2.0","id":${++id},"method":"SendMessage","params":{"message":{"messageId":"${randomUUID()}","role":"ROLE_USER","parts":[{"text":"hello from the a2a benchmark!"}],"metadata":{"${idem.IDEMPOTENCY_METADATA_KEY}":"${idem.mintKey()}"},"extensions":["${idem.IDEMPOTENCY_EXTENSION_URI}"]}}}`;
    const headers = { 'content-type': 'application/json', 'a2a-version': '1.0' };
    const res = await server.fetch(new Request('http://bench/', { method: 'POST', headers, body }));
    const answer = await res.json();
    if (answer.result?.task?.status?.state !== 'TASK_STATE_COMPLETED')
      throw new Error(`unexpected answer: ${JSON.stringify(answer)}`);
  };
  return { tree, send, close: () => server.close().then(() => store.close()), rounds: [] };
}

async function sends(send, n) {
  let left = n;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (left-- > 0) await send();
    }),
  );
}

const SCRIPTS = /^(eval|evalsha|eval_ro|evalsha_ro|fcall|fcall_ro)$/;
const builds = [];
for (const tree of trees) builds.push(await setUp(tree, builds.length));
for (const b of builds) await sends(b.send, 200);
for (let r = 0; r < ROUNDS; r++) {
  for (const b of builds) {
    await admin.sendCommand(['CONFIG', 'RESETSTAT']);
    await sends(b.send, SENDS);
    const stats = String(await admin.sendCommand(['INFO', 'commandstats']));
    const round = { scripts: 0, commands: 0, calls: 0 };
    for (const [, name, calls, usec] of stats.matchAll(/cmdstat_([^:]+):calls=(\d+),usec=(\d+)/g)) {
      if (SCRIPTS.test(name)) round.scripts += Number(usec) / SENDS;
      else if (!/^(info|config|function)/.test(name)) {
        round.commands += Number(usec) / SENDS;
        round.calls += Number(calls) / SENDS;
      }
    }
    b.rounds.push(round);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  `# Redis's own µs per keyed send (INFO commandstats), ${SENDS} sends a round at ${CONNECTIONS} at a time`,
);
console.log('| build | scripts µs a send, by round | median | of it commands | commands a send | / first |');
console.log('|---|---|---|---|---|---|');
const first = median(builds[0].rounds.map((r) => r.scripts));
for (const b of builds) {
  const m = median(b.rounds.map((r) => r.scripts));
  console.log(
    `| ${b.tree} | ${b.rounds.map((r) => r.scripts.toFixed(1)).join(' ')} | ${m.toFixed(1)} | ` +
      `${median(b.rounds.map((r) => r.commands)).toFixed(1)} | ${median(b.rounds.map((r) => r.calls)).toFixed(2)} | ` +
      `${(m / first).toFixed(2)} |`,
  );
}
for (const b of builds) await b.close();
await admin.quit();
ownRedis.stop();
