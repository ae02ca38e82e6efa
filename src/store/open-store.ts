/**
 * Opens a store from a URL, for the CLI and for servers configured by text: `memory`, `sqlite:PATH`
 * (`sqlite::memory:` too), `postgres://...` / `postgresql://...` (`?schema=NAME` picks the schema) and
 * `redis://HOST:PORT/DB` / `rediss://...` (`?prefix=NAME` picks the key prefix). The backends are imported only
 * when asked for, so a user without better-sqlite3, pg or redis installed can still use the memory store. SQL
 * stores are migrated on open unless `migrate: false`.
 */
import { userInfo } from 'node:os';
import type { Clock } from './clock.js';
import { MemoryTaskStore, type MemoryTaskStoreOptions } from './memory/index.js';
import type { MigrationReport } from './sql/migration.js';
import {
  migrationPoolConfig,
  postgresPoolConfig,
  type PostgresConnectionLimits,
} from './postgres/pg-connection-limits.js';
import { StoreError } from './sql/store-error.js';
import { checkStoreUrlParameters } from './postgres/store-url-parameters.js';
import type { TaskStore } from './task-store.js';
import { isRedisUrl, type OpenRedisOptions } from './redis/open-redis.js';

/** Options of `openStore`. */
export interface OpenStoreOptions {
  /** Source of every timestamp and cutoff (default: the wall clock). */
  clock?: Clock;
  /** Options of the memory store, for `memory`. */
  memory?: MemoryTaskStoreOptions;
  /** Apply pending migrations on open (default true; `a2a-once migrate` opens with false). */
  migrate?: boolean;
  /** Longest delay before `watch` sees another process's commit (SQL stores). */
  pollIntervalMs?: number;
  /** How long tombstones are kept after their key expired (every backend; default 7 days). */
  tombstoneTtlMs?: number;
  /**
   * How long a PostgreSQL pool waits for the database (ADR 0063): query, statement, lock, idle-transaction and
   * connect timeouts and TCP keep-alive. The store URL's parameters (`?query_timeout=...`) win over these.
   */
  postgres?: PostgresConnectionLimits;
  /**
   * Options of a `redis://` store: whether a Redis that persists nothing is accepted (ADR 0117), the bound on one
   * Redis call (ADR 0127).
   */
  redis?: Pick<OpenRedisOptions, 'allowVolatile' | 'onPersistence' | 'commandTimeoutMs'>;
}

/** A store opened from a URL; SQL stores also expose `migrate()`. */
export type OpenedStore = TaskStore & { migrate?(): Promise<MigrationReport> };

/** Opens the store `url` names. Throws `StoreError` (`BAD_STORE_URL`, `DRIVER_MISSING`) when it cannot. */
export async function openStore(url: string, options: OpenStoreOptions = {}): Promise<OpenedStore> {
  const text = url.trim();
  if (text === 'memory' || text === 'memory:') {
    return new MemoryTaskStore({
      ...options.memory,
      ...(options.tombstoneTtlMs !== undefined ? { tombstoneTtlMs: options.tombstoneTtlMs } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    });
  }
  if (isRedisUrl(text)) {
    // Redis has no schema to migrate: its scripts are loaded by the server on first use.
    const { openRedis } = await import('./redis/open-redis.js');
    return openRedis(
      text,
      () => importDriver(() => import('redis'), 'redis'),
      {
        ...options.redis,
        ...(options.clock ? { clock: options.clock } : {}),
        ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
        ...(options.tombstoneTtlMs !== undefined ? { tombstoneTtlMs: options.tombstoneTtlMs } : {}),
      },
      describeStoreUrl,
    );
  }
  let store: OpenedStore & { migrate(): Promise<MigrationReport> };
  if (text.startsWith('sqlite:')) {
    store = await openSqlite(sqlitePath(text), options);
  } else if (text.startsWith('postgres://') || text.startsWith('postgresql://')) {
    store = await openPostgres(text, options);
  } else {
    // A bare file name is the commonest slip: say the URL that opens it.
    const hint = /^(\.{0,2}\/|[A-Za-z]:\\)|\.(db|sqlite3?)$/.test(text)
      ? `; did you mean sqlite:${text}?`
      : '';
    throw new StoreError(
      'BAD_STORE_URL',
      `unknown store '${describeStoreUrl(text)}' (use memory, sqlite:PATH, postgres://USER@HOST/DB?schema=NAME, redis://HOST:PORT/DB or redis-cluster://HOST:PORT,...)${hint}`,
    );
  }
  if (options.migrate !== false) {
    try {
      await store.migrate();
    } catch (err) {
      await store.close().catch(() => undefined);
      throw unreachable(text, err);
    }
  }
  return store;
}

/**
 * A driver's failure to open the store, as a `StoreError` naming the store (its password hidden) and what to look
 * at: `connect ECONNREFUSED 127.0.0.1:5432` alone does not say which of a process's stores it was. Our own
 * refusals (`SCHEMA_TOO_NEW`, bad options) pass through as they are.
 */
function unreachable(url: string, err: unknown): unknown {
  if (err instanceof StoreError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  const hint =
    code === 'ECONNREFUSED'
      ? ': is the database running and listening there?'
      : code === '28P01' || code === '28000'
        ? ': check the user and password the URL gives'
        : code === '3D000'
          ? ': the database does not exist (create it, e.g. createdb)'
          : code === 'SQLITE_CANTOPEN'
            ? ': does the folder exist, and may this user write there?'
            : '';
  const what = err instanceof Error ? err.message : String(err);
  return new StoreError(
    'STORE_UNAVAILABLE',
    `could not open the store ${describeStoreUrl(url)} (${what})${hint}`,
    {
      cause: err,
    },
  );
}

/** The file of a `sqlite:` URL: `sqlite:data/a2a.db`, `sqlite:///abs/a2a.db`, `sqlite::memory:`. */
function sqlitePath(url: string): string {
  let path = url.slice('sqlite:'.length);
  if (path.startsWith('//')) path = path.slice(2);
  if (path === '') throw new StoreError('BAD_STORE_URL', 'sqlite: needs a path, e.g. sqlite:./a2a-once.db');
  return path;
}

async function openSqlite(path: string, options: OpenStoreOptions) {
  const { SqliteTaskStore } = await importDriver(() => import('./sqlite/index.js'), 'better-sqlite3');
  return new SqliteTaskStore({
    path,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
    ...(options.tombstoneTtlMs !== undefined ? { tombstoneTtlMs: options.tombstoneTtlMs } : {}),
  });
}

export { postgresPoolConfig };

async function openPostgres(url: string, options: OpenStoreOptions) {
  const parsed = new URL(url);
  // Before anything opens: a misspelt parameter would otherwise be ignored, `?scheme=` migrating `public`.
  checkStoreUrlParameters(parsed);
  const schema = parsed.searchParams.get('schema') ?? 'public';
  // `schema` is ours, not a libpq parameter: keep it away from pg's connection-string parser.
  parsed.searchParams.delete('schema');
  const [{ PostgresTaskStore, preparedPool }, pg] = await Promise.all([
    importDriver(() => import('./postgres/index.js'), 'pg'),
    importDriver(() => import('pg'), 'pg'),
  ]);
  // libpq defaults the user to the OS user; pg reads only $USER/$PGUSER, which service shells often lack.
  if (parsed.username === '' && !process.env.PGUSER && !process.env.USER)
    parsed.username = userInfo().username;
  const config = postgresPoolConfig(parsed.toString(), options.postgres);
  const pool = new pg.default.Pool(config);
  // An idle client's error (the server restarted) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  const store = new PostgresTaskStore({
    pool: preparedPool(pool),
    schema,
    closePool: true,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
    ...(options.tombstoneTtlMs !== undefined ? { tombstoneTtlMs: options.tombstoneTtlMs } : {}),
  });
  // Migrations run on a connection of their own without statement limits (ADR 0063): one may build an index
  // over a large table, which takes as long as it takes. The pool lives for the one call.
  store.migrate = async () => {
    const own = new pg.default.Pool(migrationPoolConfig(config));
    own.on('error', () => undefined);
    try {
      return await new PostgresTaskStore({
        pool: own,
        schema,
        ...(options.clock ? { clock: options.clock } : {}),
      }).migrate();
    } finally {
      await own.end();
    }
  };
  return store;
}

async function importDriver<T>(load: () => Promise<T>, driver: string): Promise<T> {
  try {
    return await load();
  } catch (err) {
    const code = typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
    if (code === 'ERR_MODULE_NOT_FOUND' && String(err).includes(driver)) {
      throw new StoreError(
        'DRIVER_MISSING',
        `this store needs the '${driver}' package: npm install ${driver}`,
        {
          cause: err,
        },
      );
    }
    throw err;
  }
}

/** The URL with any password replaced by `***`, for logs and CLI output. */
export function describeStoreUrl(url: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return url;
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    for (const name of ['password', 'sslpassword'])
      if (u.searchParams.has(name)) u.searchParams.set(name, '***');
    return u.toString();
  } catch {
    return url.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');
  }
}
