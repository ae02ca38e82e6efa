/**
 * Where the Redis tests run: the real server on 127.0.0.1:6379. Where none answers the Redis tests are skipped
 * with a visible notice, and under `CI=true` they fail instead, so CI never silently tests less than it claims
 * (as the PostgreSQL lane, pg-backend.ts). Each run keys everything under a fresh prefix and deletes it after.
 */
import { createClient } from 'redis';
import type { RedisConnection } from '../../src/store/redis/index.js';
import type { DriverFaults } from './fixtures/driver-faults.js';

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

/** A connection whose script writes (EVALSHA; reads run as EVALSHA_RO) go through `faults`. */
export function faultyConnection(conn: RedisConnection, faults: DriverFaults): RedisConnection {
  return {
    send: (args, routeKey) =>
      args[0] === 'EVALSHA' ? faults.around(() => conn.send(args, routeKey)) : conn.send(args, routeKey),
    subscribe: (channel, listener) => conn.subscribe(channel, listener),
    unsubscribe: (channel, listener) => conn.unsubscribe(channel, listener),
    close: () => conn.close(),
  };
}
