/**
 * A Redis that goes silent mid-load (docs/guides/redis-store.md "When Redis goes silent", ADR 0127): the store's
 * connections run through a loopback TCP proxy (test/helpers/tcp-proxy.ts) to the shared Redis (node-redis and
 * ioredis), and to a three-node cluster of the test's own, one proxy per node. Keyed SendMessages run in windows
 * through an in-process server; the proxy stalls every connection (the open ones and new ones: bytes are held,
 * nothing is answered or closed) while some are in flight, then heals (the held bytes flow on) or resets (every
 * connection is cut, what was held is lost, the clients reconnect). Every send must answer within a bound, succeeding or
 * with a clear error; a send that failed is retried with its key; afterwards every key ran its agent once and
 * names one task, and the wake-up subscription works again: a wait on the proxied store, polling only once a
 * minute, is woken by a commit of another store (another replica) on a direct connection.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { createClient, createCluster } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import { countEffects, createAgent, EffectsLog } from '../../../src/cli/agents/index.js';
import {
  IDEMPOTENCY_EXTENSION_URI,
  IDEMPOTENCY_METADATA_KEY,
  mintKey,
} from '../../../src/idempotency/index.js';
import { createA2AServer } from '../../../src/server/create-server.js';
import { RedisTaskStore, type RedisClientLike } from '../../../src/store/redis/index.js';
import type { Scope } from '../../../src/store/scope.js';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.js';
import { freshPrefix, redisLaneOrSkip, REDIS_HOST, REDIS_PORT } from '../../store-contract/redis-backend.js';
import { redisServerInstalled, startOwnCluster, type OwnCluster } from './redis-server.js';

/** The store's bound on one Redis call here (the default is 5 s). */
const TIMEOUT_MS = 400;
/** How long the proxy holds everything. */
const STALL_MS = 1500;
/** Admission's retry budget: longer than the stall, so most sends in flight during it succeed once it heals. */
const BUDGET_MS = 4000;
/** The longest any send may take: the budget, one more timed-out call, and slack for a loaded machine. */
const BOUND_MS = BUDGET_MS + TIMEOUT_MS + 3000;
const SENDS = 48;
const WINDOW = 8;
/** The scope of an anonymous caller: the sends' scope, so the wake-up check uses their channel. */
const SCOPE: Scope = { tenant: '', owner: '' };

const serverLane = await redisLaneOrSkip('Redis stall tests');
if (!redisServerInstalled) {
  if (process.env.CI === 'true')
    throw new Error('CI=true and redis-server is not installed: refusing to skip');
  console.warn('[a2a-once] NOTICE: redis-server is not installed; the Redis cluster stall test is skipped.');
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

interface Connected {
  /** The store's client, through the proxies. */
  readonly proxied: RedisClientLike;
  /** A client of another replica, straight to Redis. */
  readonly direct: RedisClientLike;
  readonly proxies: readonly TcpProxy[];
}

function body(key: string, messageId: string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: {
      message: {
        messageId,
        role: 'ROLE_USER',
        parts: [{ text: 'hello' }],
        metadata: { [IDEMPOTENCY_METADATA_KEY]: key },
        extensions: [IDEMPOTENCY_EXTENSION_URI],
      },
    },
  });
}

/** How the stall ends: the network comes back as it was, or every connection is reset (then reconnected). */
type StallEnd = 'heal' | 'reset';

async function stallUnderLoad(connected: Connected, end: StallEnd): Promise<void> {
  const prefix = freshPrefix();
  const dir = mkdtempSync(join(tmpdir(), 'a2a-once-redis-stall-'));
  cleanups.push(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
  const log = join(dir, 'effects.jsonl');
  const agent = createAgent('echo', { effectsLog: new EffectsLog(log) });
  const lines: string[] = [];
  const store = new RedisTaskStore({
    client: connected.proxied,
    prefix,
    commandTimeoutMs: TIMEOUT_MS,
    pollIntervalMs: 60_000,
  });
  const server = createA2AServer({
    agent: agent.executor,
    card: agent.card,
    store,
    storeWriteBudgetMs: BUDGET_MS,
    logger: {
      debug: (m, f) => lines.push(JSON.stringify([m, f])),
      info: (m, f) => lines.push(JSON.stringify([m, f])),
      warn: (m, f) => lines.push(JSON.stringify([m, f])),
      error: (m, f) => lines.push(JSON.stringify([m, f])),
    },
  });
  cleanups.push(() => store.close());
  cleanups.push(() => server.close());

  const send = async (key: string, messageId: string) => {
    const started = Date.now();
    const res = await server.fetch(
      new Request('http://agent.test/', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: body(key, messageId),
      }),
    );
    const json = (await res.json()) as { result?: { task?: { id: string } }; error?: { message: string } };
    return { ms: Date.now() - started, taskId: json.result?.task?.id, error: json.error?.message };
  };

  const sends = Array.from({ length: SENDS }, () => ({ key: mintKey(), messageId: crypto.randomUUID() }));
  const outcomes: Awaited<ReturnType<typeof send>>[] = [];
  let stalled = false;
  for (let i = 0; i < SENDS; i += WINDOW) {
    const window = sends.slice(i, i + WINDOW).map((s) => send(s.key, s.messageId));
    if (i === SENDS / 2) {
      // Mid-load, with this window in flight: every connection goes silent, and so does any new one.
      for (const p of connected.proxies) p.stall({ newConnections: true });
      stalled = true;
      setTimeout(() => {
        for (const p of connected.proxies) {
          // A reset drops what the stall held: those commands never reach Redis; the clients reconnect.
          if (end === 'reset') p.cut();
          p.heal();
        }
      }, STALL_MS);
    }
    outcomes.push(...(await Promise.all(window)));
    if (process.env.STALL_DEBUG) console.log('window', i, Date.now());
  }
  expect(stalled).toBe(true);
  if (process.env.STALL_DEBUG) console.log(outcomes);
  for (const o of outcomes) {
    expect(o.ms).toBeLessThan(BOUND_MS);
    // Either it succeeded, or it says what failed (the store's timeout, as an internal error), never nothing.
    if (o.taskId === undefined) expect(o.error).toEqual(expect.any(String));
  }

  // A send that failed is retried with its key, after the stall: every retry answers, with one task per key.
  const taskOf = new Map<string, string>();
  for (const [i, s] of sends.entries()) {
    let id = outcomes[i]!.taskId;
    const again = await send(s.key, s.messageId);
    expect(again.error).toBeUndefined();
    if (id !== undefined) expect(again.taskId).toBe(id);
    id ??= again.taskId;
    taskOf.set(s.key, id!);
  }
  expect(new Set(taskOf.values()).size).toBe(SENDS);
  // The stall was met, logged with the store's timeout, and no log line holds a key in clear.
  expect(lines.some((l) => l.includes('Redis did not answer'))).toBe(true);
  for (const s of sends) expect(lines.filter((l) => l.includes(s.key))).toEqual([]);
  // Each key ran its agent once, stall or not.
  expect(countEffects(log)).toBe(SENDS);
  expect((await store.listTasks(SCOPE, { pageSize: 1000 })).totalSize).toBe(SENDS);

  // The wake-up subscription works again: a waiter that would poll only after a minute is woken by a commit
  // another replica makes, which it can hear only through the scope's subscription, made before the stall.
  const other = new RedisTaskStore({ client: connected.direct, prefix, commandTimeoutMs: TIMEOUT_MS });
  cleanups.push(() => other.close());
  const created = await other.createTask(SCOPE, {
    task: {
      id: 'wake-me',
      contextId: 'c',
      status: { state: 'TASK_STATE_WORKING', timestamp: new Date().toISOString() },
    },
  });
  if (created.outcome !== 'created') throw new Error(`the wake-up task was not created: ${created.outcome}`);
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 10_000);
  cleanups.push(() => Promise.resolve(clearTimeout(timer)));
  const waited = store.nextRecord(
    SCOPE,
    'wake-me',
    -1,
    abort.signal,
    (r) => r.task.status.state === 'TASK_STATE_COMPLETED',
  );
  // The wait holds its subscription before it reads; let it settle, then commit from the other replica.
  await new Promise((r) => setTimeout(r, 300));
  const started = Date.now();
  const done = await other.commit(SCOPE, 'wake-me', {
    expectFence: created.record.fence,
    task: {
      id: 'wake-me',
      contextId: 'c',
      status: { state: 'TASK_STATE_COMPLETED', timestamp: new Date().toISOString() },
    },
    events: [],
  });
  expect(done.ok).toBe(true);
  const woken = await waited;
  expect(woken?.task.status.state).toBe('TASK_STATE_COMPLETED');
  expect(Date.now() - started).toBeLessThan(5000);
}

describe.runIf(serverLane)('a silent Redis under load (the shared server, through a stalling proxy)', () => {
  it.each<StallEnd>(['heal', 'reset'])(
    'every send answers within a bound, no key runs twice, and wake-ups work after the stall (ends: %s)',
    async (end) => {
      const proxy = await startTcpProxy({ host: REDIS_HOST, port: REDIS_PORT });
      cleanups.push(() => proxy.close());
      const proxied = createClient({ url: `redis://127.0.0.1:${proxy.port}` });
      const direct = createClient({ url: `redis://${REDIS_HOST}:${REDIS_PORT}` });
      for (const c of [proxied, direct]) {
        c.on('error', () => undefined);
        await c.connect();
        cleanups.push(() => c.close());
      }
      await stallUnderLoad(
        {
          proxied: proxied,
          direct: direct,
          proxies: [proxy],
        },
        end,
      );
    },
    60_000,
  );
});

describe.runIf(serverLane)('a silent Redis under load, through ioredis (the shared server)', () => {
  it.each<StallEnd>(['heal', 'reset'])(
    'every send answers within a bound, no key runs twice, and wake-ups work after the stall (ends: %s)',
    async (end) => {
      const proxy = await startTcpProxy({ host: REDIS_HOST, port: REDIS_PORT });
      cleanups.push(() => proxy.close());
      const proxied = new Redis({ host: '127.0.0.1', port: proxy.port });
      const direct = new Redis({ host: REDIS_HOST, port: REDIS_PORT });
      for (const c of [proxied, direct]) {
        c.on('error', () => undefined);
        cleanups.push(() => c.quit());
      }
      await stallUnderLoad({ proxied, direct, proxies: [proxy] }, end);
    },
    60_000,
  );
});

describe.runIf(redisServerInstalled)(
  'a silent Redis Cluster under load (three nodes, a stalling proxy each)',
  () => {
    it.each<StallEnd>(['heal', 'reset'])(
      'every send answers within a bound, no key runs twice, and wake-ups work after the stall (ends: %s)',
      async (end) => {
        const cluster: OwnCluster = await startOwnCluster();
        cleanups.push(() => cluster.dispose());
        const proxies = await Promise.all(
          cluster.ports.map((port) => startTcpProxy({ host: '127.0.0.1', port })),
        );
        for (const p of proxies) cleanups.push(() => p.close());
        // The nodes announce their own ports; the client is told to reach each through its proxy.
        const map = new Map(cluster.ports.map((port, i) => [`127.0.0.1:${port}`, proxies[i]!.port]));
        const proxied = createCluster({
          rootNodes: [{ url: `redis://127.0.0.1:${proxies[0]!.port}` }],
          nodeAddressMap: (address: string) => {
            const port = map.get(address);
            return port === undefined ? undefined : { host: '127.0.0.1', port };
          },
        });
        const direct = createCluster({ rootNodes: [{ url: `redis://127.0.0.1:${cluster.ports[0]}` }] });
        for (const c of [proxied, direct]) {
          c.on('error', () => undefined);
          await c.connect();
          cleanups.push(() => c.close());
        }
        await stallUnderLoad({ proxied, direct, proxies }, end);
      },
      90_000,
    );
  },
);
