// Memory of Redis under keyed sends with retention on (ADR 0119): a redis-server of its own (no persistence:
// the measure is memory, and an AOF rewrite's fork would add copy-on-write pages), the Redis store driven
// directly as the server drives it for the echo agent (a keyed createTask holding a lease, then one commit of an
// artifact and the COMPLETED status, clearing the lease), WINDOW sends in flight, and retention every second:
// finished tasks older than --retain, keys expiring after --key-ttl, tombstones older than --tombstone-ttl.
// Prints Redis's RSS and allocator use every tenth of the run; with retention on they level off once keys,
// tasks and tombstones come and go at the same rate.
//
//   node bench/redis-rss.mjs [--sends 1000000] [--window 64] [--key-ttl 20] [--retain 20] [--tombstone-ttl 40]
//   (ages in seconds; needs npm run build, redis-server on PATH)
import { createClient } from 'redis';
import { startOwnRedis } from './lib/own-redis.mjs';
import { RedisTaskStore } from '../dist/store/redis/index.js';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const SENDS = arg('sends', 1_000_000);
const WINDOW = arg('window', 64);
const KEY_TTL_MS = arg('key-ttl', 20) * 1000;
const RETAIN_MS = arg('retain', 20) * 1000;
const TOMBSTONE_MS = arg('tombstone-ttl', 40) * 1000;

const ownRedis = await startOwnRedis('redis-rss');
const { port } = ownRedis;

const client = createClient({ url: `redis://127.0.0.1:${port}` });
client.on('error', () => {});
await client.connect();
const store = new RedisTaskStore({ client, tombstoneTtlMs: TOMBSTONE_MS });

async function memory() {
  const info = String(await client.sendCommand(['INFO', 'memory']));
  const field = (n) => Number(new RegExp(`^${n}:(\\d+)`, 'm').exec(info)?.[1] ?? NaN);
  const keys = Number(await client.sendCommand(['DBSIZE']));
  return { rss: field('used_memory_rss'), used: field('used_memory'), keys };
}
const mb = (b) => (b / 1048576).toFixed(1);

const scope = { tenant: '', owner: 'bench' };
const run = Math.random().toString(36).slice(2, 8);
let next = 0;
let done = 0;
const started = Date.now();
const purged = { tasks: 0, keys: 0, tombstones: 0 };
let purging = true;
const retention = (async () => {
  while (purging) {
    const r = await store.purgeExpired({ terminalMaxAgeMs: RETAIN_MS, tombstoneMaxAgeMs: TOMBSTONE_MS });
    purged.tasks += r.tasks;
    purged.keys += r.keys;
    purged.tombstones += r.tombstones;
    await new Promise((res) => setTimeout(res, 1000));
  }
})();

console.log(`# Redis memory over ${SENDS.toLocaleString('en')} keyed sends, retention every second`);
console.log(
  `key TTL ${KEY_TTL_MS / 1000} s, finished tasks kept ${RETAIN_MS / 1000} s, tombstones ${TOMBSTONE_MS / 1000} s; ${WINDOW} in flight; node ${process.version}`,
);
console.log('');
console.log(
  '| sends | elapsed s | sends/s | Redis keys | used_memory MB | RSS MB | tasks purged | keys tombstoned | tombstones purged |',
);
console.log('|---|---|---|---|---|---|---|---|---|');
const step = Math.max(1, Math.floor(SENDS / 10));
let reported = 0;
const lane = async () => {
  while (next < SENDS) {
    const i = next++;
    const id = `${run}-${i}`;
    const task = {
      id,
      contextId: `c-${id}`,
      status: { state: 'TASK_STATE_SUBMITTED', timestamp: new Date().toISOString() },
      history: [{ messageId: `m-${id}`, role: 'ROLE_USER', parts: [{ text: `echo ${i}` }] }],
    };
    const now = Date.now();
    const created = await store.createTask(scope, {
      task,
      claim: { key: `k-${id}`, messageId: `m-${id}`, digest: `d-${id}`, expiresAt: now + KEY_TTL_MS },
      lease: { owner: 'bench#1', ttlMs: 30_000 },
      maxKeysPerScope: 10_000_000,
    });
    if (created.outcome !== 'created') throw new Error(`send ${i}: ${created.outcome}`);
    const artifact = { artifactId: 'a', parts: [{ text: `echo ${i}` }] };
    const status = { state: 'TASK_STATE_COMPLETED', timestamp: new Date().toISOString() };
    const finished = { ...task, status, artifacts: [artifact] };
    const r = await store.commit(scope, id, {
      expectFence: 1,
      task: finished,
      events: [
        { artifactUpdate: { taskId: id, contextId: task.contextId, artifact } },
        { statusUpdate: { taskId: id, contextId: task.contextId, status } },
      ],
      lease: null,
    });
    if (!r.ok) throw new Error(`send ${i}: commit refused`);
    done++;
    if (done >= reported + step) {
      reported += step;
      const m = await memory();
      const s = (Date.now() - started) / 1000;
      console.log(
        `| ${done.toLocaleString('en')} | ${s.toFixed(0)} | ${Math.round(done / s).toLocaleString('en')} | ${m.keys.toLocaleString('en')} | ${mb(m.used)} | ${mb(m.rss)} | ${purged.tasks.toLocaleString('en')} | ${purged.keys.toLocaleString('en')} | ${purged.tombstones.toLocaleString('en')} |`,
      );
    }
  }
};
await Promise.all(Array.from({ length: WINDOW }, lane));
purging = false;
await retention;
await store.close();
await client.close();
ownRedis.stop();
