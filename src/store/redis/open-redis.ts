/**
 * `openStore('redis://HOST:PORT/DB?prefix=NAME')` (`rediss://` for TLS) and
 * `openStore('redis-cluster://HOST:PORT,HOST:PORT/?prefix=NAME')` (a Redis Cluster, from any of its nodes):
 * connects node-redis (the optional peer `redis`), checks the server, every master of a cluster (Redis 7 or
 * later: sharded pub/sub and read-only scripts; and persistence, ADR 0117), and opens the store on it. The client
 * is the store's: `close()` quits it.
 */
import { StoreError } from '../sql/store-error.js';
import type { Clock } from '../clock.js';
import { checkRedisPersistence, type RedisPersistence } from './redis-persistence.js';
import { redisConnection, type RedisClientLike, type RedisConnection } from './redis-connection.js';
import { RedisTaskStore } from './redis-task-store.js';
import {
  checkCommandTimeout,
  DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
  withCommandTimeout,
} from './redis-timeout.js';

/** Options of a Redis store opened from a URL. */
export interface OpenRedisOptions {
  clock?: Clock;
  pollIntervalMs?: number;
  tombstoneTtlMs?: number;
  /**
   * Open a Redis that persists nothing (no AOF, no RDB rule) anyway (`serve --redis-allow-volatile`): a restart
   * of it then forgets every key, and a retry after it runs its send again. Default false: refused.
   */
  allowVolatile?: boolean;
  /** Longest wait for the answer of one Redis call before it fails `STORE_TIMEOUT` (default 5000 ms, ADR 0127). */
  commandTimeoutMs?: number;
  /** Called with what the server (the first master of a cluster) persists, once checked (the CLI prints it). */
  onPersistence?: (p: RedisPersistence) => void;
}

/** The part of node-redis `openRedis` uses. */
export interface NodeRedisModule {
  createClient(options: object): unknown;
  createCluster(options: object): unknown;
}

/** The store URL parameters the Redis store understands. */
const PARAMETERS = new Set(['prefix']);

/** Whether `url` names a Redis store. */
export function isRedisUrl(url: string): boolean {
  return url.startsWith('redis://') || url.startsWith('rediss://') || url.startsWith('redis-cluster://');
}

/** The Redis server's major version must be at least this (SPUBLISH, EVALSHA_RO). */
const MIN_MAJOR = 7;

/** A connected node-redis client or cluster, as `openRedis` drives it. */
interface Opened {
  readonly client: RedisClientLike;
  /** Connections to check: the server, or every master of a cluster. */
  nodes(): Promise<RedisConnection[]>;
  quit(): Promise<void>;
}

/** Splits off `?prefix=` (refusing any other parameter). */
function takePrefix(query: URLSearchParams): string | undefined {
  for (const name of query.keys()) {
    if (!PARAMETERS.has(name))
      throw new StoreError(
        'BAD_STORE_URL',
        `unknown parameter '${name}' in a Redis store URL (known: prefix)`,
      );
  }
  return query.get('prefix') ?? undefined;
}

/** Opens the store; `load` imports node-redis (so a missing package is reported by the caller). */
export async function openRedis(
  url: string,
  load: () => Promise<NodeRedisModule>,
  options: OpenRedisOptions,
  describe: (url: string) => string,
): Promise<RedisTaskStore> {
  const cluster = url.startsWith('redis-cluster://');
  let prefix: string | undefined;
  let target: string | string[];
  if (cluster) {
    const rest = url.slice('redis-cluster://'.length);
    const cut = rest.search(/[/?]/);
    const hosts = (cut < 0 ? rest : rest.slice(0, cut)).split(',').filter((h) => h !== '');
    if (hosts.length === 0)
      throw new StoreError('BAD_STORE_URL', 'redis-cluster:// needs at least one HOST:PORT of the cluster');
    prefix = takePrefix(new URLSearchParams(cut < 0 ? '' : rest.slice(cut).replace(/^\/?\??/, '')));
    target = hosts.map((h) => `redis://${h}`);
  } else {
    const parsed = new URL(url);
    prefix = takePrefix(parsed.searchParams);
    parsed.search = '';
    target = parsed.toString();
  }
  const driver = await load();
  let opened: Opened;
  try {
    opened = await connect(driver, target);
  } catch (err) {
    const what = err instanceof Error ? err.message : String(err);
    throw new StoreError(
      'STORE_UNAVAILABLE',
      `could not open the store ${describe(url)} (${what}): is Redis running and listening there?`,
      { cause: err },
    );
  }
  try {
    let first: RedisPersistence | undefined;
    const bound = checkCommandTimeout(options.commandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS);
    for (const node of await opened.nodes()) {
      const persistence = await checkRedisPersistence(withCommandTimeout(node, bound));
      first ??= persistence;
      check(persistence, url, options, describe);
    }
    if (first) options.onPersistence?.(first);
    return new RedisTaskStore({
      client: opened.client,
      ...(prefix !== undefined ? { prefix } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
      ...(options.tombstoneTtlMs !== undefined ? { tombstoneTtlMs: options.tombstoneTtlMs } : {}),
      ...(options.commandTimeoutMs !== undefined ? { commandTimeoutMs: options.commandTimeoutMs } : {}),
      onClose: () => opened.quit(),
    });
  } catch (err) {
    await opened.quit();
    throw err;
  }
}

function check(
  p: RedisPersistence,
  url: string,
  options: OpenRedisOptions,
  describe: (url: string) => string,
): void {
  const major = Number.parseInt(p.version, 10);
  if (!(major >= MIN_MAJOR)) {
    throw new StoreError(
      'STORE_UNAVAILABLE',
      `the store ${describe(url)} is Redis ${p.version}; the Redis store needs Redis ${MIN_MAJOR} or later`,
    );
  }
  if (!p.persists && options.allowVolatile !== true) {
    throw new StoreError(
      'STORE_UNAVAILABLE',
      `the store ${describe(url)} persists nothing (appendonly no and no RDB save rule): a restart of it would ` +
        'forget every idempotency key, and a retry after it would run its send again. Turn on AOF ' +
        '(appendonly yes, appendfsync always or everysec), or pass --redis-allow-volatile to accept that ' +
        '(docs/guides/redis-store.md "Persistence")',
    );
  }
}

interface Connectable {
  connect(): Promise<unknown>;
  on(event: 'error', f: () => void): unknown;
  close?(): Promise<unknown>;
  quit?(): Promise<unknown>;
}

async function connect(driver: NodeRedisModule, target: string | string[]): Promise<Opened> {
  let ready = false;
  const socket = {
    connectTimeout: 5000,
    // Reconnect for ever once open (a restart, a failover); but not while opening: a wrong URL fails at once.
    reconnectStrategy: (retries: number, cause: Error) => (ready ? Math.min(50 * 2 ** retries, 2000) : cause),
  };
  const client = (
    typeof target === 'string'
      ? driver.createClient({ url: target, socket })
      : driver.createCluster({ rootNodes: target.map((url) => ({ url })), defaults: { socket } })
  ) as Connectable;
  client.on('error', () => undefined);
  const quit = async () => {
    await (client.close ? client.close() : client.quit?.())?.catch(() => undefined);
  };
  try {
    await client.connect();
  } catch (err) {
    await quit();
    throw err;
  }
  ready = true;
  const store = client as unknown as RedisClientLike;
  return {
    client: store,
    quit,
    nodes: async () => {
      if (typeof target === 'string') return [redisConnection(store)];
      const c = client as unknown as { masters: unknown[]; nodeClient(m: unknown): Promise<unknown> };
      return Promise.all(
        c.masters.map(async (m) => redisConnection((await c.nodeClient(m)) as RedisClientLike)),
      );
    },
  };
}
