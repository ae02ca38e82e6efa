/**
 * `openStore('redis://HOST:PORT/DB?prefix=NAME')` (and `rediss://` for TLS): connects node-redis (the optional
 * peer `redis`), checks the server (Redis 7 or later: sharded pub/sub and read-only scripts; and persistence,
 * ADR 0117) and opens the store on it. The client is the store's: `close()` quits it.
 */
import { StoreError } from '../sql/store-error.js';
import type { Clock } from '../clock.js';
import { checkRedisPersistence, type RedisPersistence } from './redis-persistence.js';
import { redisConnection, type NodeRedisClientLike } from './redis-connection.js';
import { RedisTaskStore } from './redis-task-store.js';

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
  /** Called with what the server persists, once checked (the CLI prints it). */
  onPersistence?: (p: RedisPersistence) => void;
}

/** The store URL parameters the Redis store understands. */
const PARAMETERS = new Set(['prefix']);

/** Whether `url` names a Redis store. */
export function isRedisUrl(url: string): boolean {
  return url.startsWith('redis://') || url.startsWith('rediss://');
}

/** The Redis server's major version must be at least this (SPUBLISH, EVALSHA_RO). */
const MIN_MAJOR = 7;

/** Opens the store; `load` imports node-redis (so a missing package is reported by the caller). */
export async function openRedis(
  url: string,
  load: () => Promise<{ createClient: (options: object) => unknown }>,
  options: OpenRedisOptions,
  describe: (url: string) => string,
): Promise<RedisTaskStore> {
  const parsed = new URL(url);
  for (const name of parsed.searchParams.keys()) {
    if (!PARAMETERS.has(name))
      throw new StoreError(
        'BAD_STORE_URL',
        `unknown parameter '${name}' in a redis:// store URL (known: prefix)`,
      );
  }
  const prefix = parsed.searchParams.get('prefix') ?? undefined;
  parsed.search = '';
  const { createClient } = await load();
  let opened = false;
  const client = createClient({
    url: parsed.toString(),
    socket: {
      connectTimeout: 5000,
      // Reconnect for ever once open (a restart, a failover); but not while opening: a wrong URL fails at once.
      reconnectStrategy: (retries: number, cause: Error) =>
        opened ? Math.min(50 * 2 ** retries, 2000) : cause,
    },
  }) as NodeRedisClientLike & { on(event: 'error', f: () => void): unknown };
  client.on('error', () => undefined);
  const quit = async () => {
    await (client.close ? client.close() : client.quit?.())?.catch(() => undefined);
  };
  try {
    await client.connect();
  } catch (err) {
    await quit();
    const what = err instanceof Error ? err.message : String(err);
    throw new StoreError(
      'STORE_UNAVAILABLE',
      `could not open the store ${describe(url)} (${what}): is Redis running and listening there?`,
      { cause: err },
    );
  }
  opened = true;
  try {
    const conn = redisConnection(client);
    const persistence = await checkRedisPersistence(conn);
    const major = Number.parseInt(persistence.version, 10);
    if (!(major >= MIN_MAJOR)) {
      throw new StoreError(
        'STORE_UNAVAILABLE',
        `the store ${describe(url)} is Redis ${persistence.version}; the Redis store needs Redis ${MIN_MAJOR} or later`,
      );
    }
    if (!persistence.persists && options.allowVolatile !== true) {
      throw new StoreError(
        'STORE_UNAVAILABLE',
        `the store ${describe(url)} persists nothing (appendonly no and no RDB save rule): a restart of it would ` +
          'forget every idempotency key, and a retry after it would run its send again. Turn on AOF ' +
          '(appendonly yes, appendfsync always or everysec), or pass --redis-allow-volatile to accept that ' +
          '(docs/stores/redis.md "Persistence")',
      );
    }
    options.onPersistence?.(persistence);
    return new RedisTaskStore({
      client,
      ...(prefix !== undefined ? { prefix } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
      ...(options.tombstoneTtlMs !== undefined ? { tombstoneTtlMs: options.tombstoneTtlMs } : {}),
      onClose: quit,
    });
  } catch (err) {
    await quit();
    throw err;
  }
}
