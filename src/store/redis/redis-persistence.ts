/**
 * Whether a Redis server keeps what it acknowledges (ADR 0117). A Redis that persists nothing (`appendonly no`
 * and no RDB `save` rule) loses every key on a restart, and with the keys the promise that a retry runs once: a
 * retry after the restart finds no claim and runs the send again. `serve` refuses such a server unless told
 * `--redis-allow-volatile`. The answer comes from `INFO persistence` (AOF on or off) and `CONFIG GET save`
 * (RDB rules); a server that hides CONFIG (some managed offerings rename it) is judged by AOF alone.
 */
import type { RedisConnection } from './redis-connection.js';
import { list } from './redis-records.js';

/** What the server says about its persistence. */
export interface RedisPersistence {
  /** AOF is on (`appendonly yes`). */
  readonly aof: boolean;
  /** `appendfsync` when AOF is on and CONFIG answers: `always`, `everysec` or `no`. */
  readonly appendfsync?: string;
  /** The RDB save rules (`save`), '' for none; undefined when CONFIG is not available. */
  readonly rdbSave?: string;
  /** The server's version (`redis_version`). */
  readonly version: string;
  /** True when the server keeps anything across a restart (AOF, or at least one RDB rule). */
  readonly persists: boolean;
}

function infoField(info: string, name: string): string | undefined {
  const m = new RegExp(`^${name}:(.*)$`, 'm').exec(info);
  return m?.[1]?.trim();
}

async function configGet(conn: RedisConnection, name: string): Promise<string | undefined> {
  try {
    const r = list(await conn.send(['CONFIG', 'GET', name]));
    return r.length >= 2 ? String(r[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Reads what the server persists. */
export async function checkRedisPersistence(conn: RedisConnection): Promise<RedisPersistence> {
  const persistence = String(await conn.send(['INFO', 'persistence']));
  const server = String(await conn.send(['INFO', 'server']));
  const aof = infoField(persistence, 'aof_enabled') === '1';
  const rdbSave = await configGet(conn, 'save');
  const appendfsync = aof ? await configGet(conn, 'appendfsync') : undefined;
  return {
    aof,
    ...(appendfsync === undefined ? {} : { appendfsync }),
    ...(rdbSave === undefined ? {} : { rdbSave }),
    version: infoField(server, 'redis_version') ?? 'unknown',
    persists: aof || (rdbSave !== undefined && rdbSave.trim() !== ''),
  };
}
