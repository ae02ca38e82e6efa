/**
 * Where the Redis tests run: the real server on 127.0.0.1:6379. Where none answers the Redis tests are skipped
 * with a visible notice, and under `CI=true` they fail instead, so CI never silently tests less than it claims
 * (as the PostgreSQL lane, pg-backend.ts). Each run keys everything under a fresh prefix and deletes it after.
 */
import { createClient } from 'redis';
import { ManualClock } from '../../src/store/clock.js';
import {
  RedisTaskStore,
  redisConnection,
  type RedisClientLike,
  type RedisConnection,
} from '../../src/store/redis/index.js';
import { DriverFaults } from './fixtures/driver-faults.js';
import type { MakeStore } from './harness.js';

export const REDIS_HOST = '127.0.0.1';
export const REDIS_PORT = 6379;
export const REDIS_URL = `redis://${REDIS_HOST}:${REDIS_PORT}`;

/** Connects a client to `url`. */
async function connect(url: string) {
  const client = createClient({ url });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/** A connected node-redis client. */
export type NodeRedis = Awaited<ReturnType<typeof connect>>;

/** Which Redis the tests run on. */
export type RedisLane = { readonly kind: 'server' } | { readonly kind: 'none'; readonly why: string };

/** Probes the server once. */
export async function chooseRedisLane(url = REDIS_URL): Promise<RedisLane> {
  const client = createClient({ url, socket: { connectTimeout: 2000, reconnectStrategy: false } });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    return { kind: 'server' };
  } catch (err) {
    return {
      kind: 'none',
      why: `no Redis answers on ${url} (${err instanceof Error ? err.message : String(err)})`,
    };
  } finally {
    await client.close().catch(() => undefined);
  }
}

/**
 * The lane, or a thrown error under CI=true when there is no server; prints the notice of a skip once per file.
 */
export async function redisLaneOrSkip(what: string): Promise<boolean> {
  const lane = await chooseRedisLane();
  if (lane.kind === 'server') return true;
  if (process.env.CI === 'true') throw new Error(`CI=true and ${lane.why}: refusing to skip the ${what}`);
  console.warn(`[a2a-once] NOTICE: ${lane.why}; the ${what} are skipped.`);
  return false;
}

/** Connects a client to `url` (the shared server by default). */
export function connectRedis(url = REDIS_URL): Promise<NodeRedis> {
  return connect(url);
}

/** The prefix of this test file's run: every key it makes is under it, deleted once after the file. */
export const RUN_PREFIX = `a2a-test:${process.pid}-${Math.random().toString(36).slice(2, 10)}:`;

let made = 0;

/** A prefix no other run or test uses, under `RUN_PREFIX`. */
export function freshPrefix(): string {
  return `${RUN_PREFIX}${++made}:`;
}

/** Deletes every key under `prefix` (SCAN, never KEYS: the server is shared). */
export async function dropPrefix(client: NodeRedis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const r = await client.scan(cursor, { MATCH: `${prefix}*`, COUNT: 1000 });
    cursor = String(r.cursor);
    if (r.keys.length > 0) await client.unlink(r.keys);
  } while (cursor !== '0');
}

/**
 * A connection whose script writes go through `faults`: FCALL (ADR 0133), or EVALSHA, or EVAL after NOSCRIPT;
 * reads run as FCALL_RO or EVALSHA_RO and pass, as does FUNCTION LOAD, which writes no data.
 */
export function faultyConnection(conn: RedisConnection, faults: DriverFaults): RedisConnection {
  return {
    send: async (args, routeKey) => {
      // The writing scripts: as functions, by SHA, or sent whole when the node answered NOSCRIPT.
      if (args[0] !== 'FCALL' && args[0] !== 'EVALSHA' && args[0] !== 'EVAL')
        return conn.send(args, routeKey);
      const hits = faults.hits;
      let ranNothing = false;
      try {
        return await faults.around(() =>
          conn.send(args, routeKey).catch((err: unknown) => {
            ranNothing = err instanceof Error && /^NOSCRIPT|Function not found/.test(err.message);
            throw err;
          }),
        );
      } catch (err) {
        // A NOSCRIPT or "Function not found" answer ran nothing: the store now sends the script whole, or loads
        // the library and calls again, and that is the write the fault is for (a node of a cluster that never
        // ran the script, or never got the library, answers so at random in a test run).
        if (ranNothing && faults.hits > hits) faults.giveBackLostAnswer();
        throw err;
      }
    },
    subscribe: (channel, listener) => conn.subscribe(channel, listener),
    unsubscribe: (channel, listener) => conn.unsubscribe(channel, listener),
    close: () => conn.close(),
  };
}

/**
 * The contract suite's factory of fresh Redis stores: a fresh prefix per test on `main` (through the fault
 * injector), peers on `second` (another connection, so the races run on two), `afterCleanup` run last (a cluster
 * run drops each test's prefix there).
 */
export function redisContractStores(
  main: () => RedisClientLike,
  second: () => RedisClientLike,
  afterCleanup: (prefix: string) => Promise<void> = () => Promise.resolve(),
): MakeStore {
  return () => {
    const clock = new ManualClock();
    const prefix = freshPrefix();
    const faults = new DriverFaults();
    const store = new RedisTaskStore({
      client: faultyConnection(redisConnection(main()), faults),
      prefix,
      clock,
      pollIntervalMs: 50,
    });
    const peers: RedisTaskStore[] = [];
    return Promise.resolve({
      store,
      clock,
      faults,
      openPeer: () => {
        const peer = new RedisTaskStore({ client: second(), prefix, clock, pollIntervalMs: 50 });
        peers.push(peer);
        return Promise.resolve(peer);
      },
      cleanup: async () => {
        for (const p of peers) await p.close();
        await store.close();
        await afterCleanup(prefix);
      },
    });
  };
}
