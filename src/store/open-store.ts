/**
 * Opens a store from a URL, for the CLI and for servers configured by text: `memory`, `sqlite:PATH`
 * (`sqlite::memory:` too) and `postgres://...` / `postgresql://...` (`?schema=NAME` picks the schema). The SQL
 * backends are imported only when asked for, so a user without better-sqlite3 or pg installed can still use the
 * memory store. SQL stores are migrated on open unless `migrate: false`.
 */
import { userInfo } from 'node:os';
import type { Clock } from './clock.js';
import { MemoryTaskStore, type MemoryTaskStoreOptions } from './memory/index.js';
import type { MigrationReport } from './sql/migration.js';
import { StoreError } from './sql/store-error.js';
import type { TaskStore } from './task-store.js';

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
  let store: OpenedStore & { migrate(): Promise<MigrationReport> };
  if (text.startsWith('sqlite:')) {
    store = await openSqlite(sqlitePath(text), options);
  } else if (text.startsWith('postgres://') || text.startsWith('postgresql://')) {
    store = await openPostgres(text, options);
  } else {
    throw new StoreError(
      'BAD_STORE_URL',
      `unknown store '${describeStoreUrl(text)}' (use memory, sqlite:PATH or postgres://USER@HOST/DB)`,
    );
  }
  if (options.migrate !== false) {
    try {
      await store.migrate();
    } catch (err) {
      await store.close();
      throw err;
    }
  }
  return store;
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

/**
 * Session settings of the pools `openStore` makes (ADR 0047): nothing waits forever. A statement waiting on another
 * transaction's lock gives up after 10 s, and a session left idle inside a transaction (a stalled replica) is
 * ended after 60 s, releasing its locks. A URL that sets `options` itself replaces these.
 */
export const POSTGRES_SESSION_OPTIONS = '-c lock_timeout=10000 -c idle_in_transaction_session_timeout=60000';

/** The pg pool configuration for a connection string. */
export function postgresPoolConfig(connectionString: string): { connectionString: string; options: string } {
  return { connectionString, options: POSTGRES_SESSION_OPTIONS };
}

async function openPostgres(url: string, options: OpenStoreOptions) {
  const parsed = new URL(url);
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
  const pool = new pg.default.Pool(postgresPoolConfig(parsed.toString()));
  // An idle client's error (the server restarted) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  return new PostgresTaskStore({
    pool: preparedPool(pool),
    schema,
    closePool: true,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
    ...(options.tombstoneTtlMs !== undefined ? { tombstoneTtlMs: options.tombstoneTtlMs } : {}),
  });
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
