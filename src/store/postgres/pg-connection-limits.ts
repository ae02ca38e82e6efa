/**
 * How long the pools `openStore` makes wait for PostgreSQL (ADR 0063): nothing waits forever, whether the database
 * is slow (it cancels the statement itself: `statement_timeout`, `lock_timeout`), silent (the client gives up:
 * `query_timeout`, and pg then destroys the connection rather than reuse it), unreachable (`connectionTimeoutMillis`)
 * or gone without a word while a connection sat idle (TCP keep-alive). Each limit can be changed in code
 * (`OpenStoreOptions.postgres`) or in the store URL, which wins, so the CLI's `--store` can set them too.
 * Nothing here imports pg: this is the configuration handed to it.
 */
import { StoreError } from '../sql/store-error.js';

/** The limits, each in milliseconds; 0 turns one off. */
export interface PostgresConnectionLimits {
  /**
   * Longest wait for a statement's answer, client side (pg's `query_timeout`; URL `query_timeout`, ms). Past it
   * the statement fails and its connection is destroyed: it may still be running, or its answer may be lost.
   * Above `statementTimeoutMs`, so a slow but live server always answers first. Default 20 s.
   */
  queryTimeoutMs?: number;
  /** Longest a statement may run, server side (`statement_timeout`; URL `statement_timeout`, ms). Default 15 s. */
  statementTimeoutMs?: number;
  /** Longest a statement waits for another transaction's lock (`lock_timeout`, ms). Default 10 s. */
  lockTimeoutMs?: number;
  /**
   * Longest a session may sit idle inside a transaction before the server ends it, releasing its locks
   * (`idle_in_transaction_session_timeout`, ms): the bound on a lock left by a client that went silent mid
   * transaction. Default 20 s.
   */
  idleInTransactionTimeoutMs?: number;
  /**
   * Longest wait for a new connection (TCP, TLS and authentication) and for a free pooled one (pg's
   * `connectionTimeoutMillis`; URL `connect_timeout`, in seconds as in libpq). Default 10 s.
   */
  connectTimeoutMs?: number;
  /**
   * Idle time after which TCP keep-alive probes an open connection, so a peer that vanished is noticed on an idle
   * connection too (URL `keepalives_idle` in seconds, `keepalives=0` for none). Default 10 s.
   */
  keepAliveIdleMs?: number;
}

/** The defaults of `PostgresConnectionLimits`. */
export const DEFAULT_POSTGRES_LIMITS: Readonly<Required<PostgresConnectionLimits>> = Object.freeze({
  queryTimeoutMs: 20_000,
  statementTimeoutMs: 15_000,
  lockTimeoutMs: 10_000,
  idleInTransactionTimeoutMs: 20_000,
  connectTimeoutMs: 10_000,
  keepAliveIdleMs: 10_000,
});

/** The configuration of a `pg.Pool` (the part `openStore` sets). */
export interface PostgresPoolConfig {
  connectionString: string;
  /** Session settings sent at connect (`-c name=value ...`): the server-side limits, then the URL's `options`. */
  options: string;
  query_timeout: number;
  connectionTimeoutMillis: number;
  keepAlive: boolean;
  keepAliveInitialDelayMillis: number;
}

/** URL parameters read here (and removed before pg sees the URL), with their unit. */
const URL_PARAMETERS: Record<string, { limit: keyof PostgresConnectionLimits; unitMs: number }> = {
  query_timeout: { limit: 'queryTimeoutMs', unitMs: 1 },
  statement_timeout: { limit: 'statementTimeoutMs', unitMs: 1 },
  lock_timeout: { limit: 'lockTimeoutMs', unitMs: 1 },
  idle_in_transaction_session_timeout: { limit: 'idleInTransactionTimeoutMs', unitMs: 1 },
  connect_timeout: { limit: 'connectTimeoutMs', unitMs: 1000 },
  keepalives_idle: { limit: 'keepAliveIdleMs', unitMs: 1000 },
};

/** Largest limit accepted: a setTimeout past 2^31-1 ms fires at once. */
const MAX_MS = 2_147_483_647;

function checkedMs(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_MS) {
    throw new StoreError(
      'BAD_OPTIONS',
      `${what} must be a whole number of milliseconds from 0, got ${value}`,
    );
  }
  return value;
}

function urlValue(name: string, text: string): number {
  if (!/^\d{1,10}$/.test(text)) {
    throw new StoreError(
      'BAD_STORE_URL',
      `store URL parameter ${name} must be a whole number, got '${text}'`,
    );
  }
  return Number(text);
}

/**
 * The pool configuration for `connectionString` (a `postgres://` URL): the limits from `limits` over the defaults,
 * and from the URL's parameters over both. The parameters read are removed from the URL. Throws `StoreError`
 * (`BAD_STORE_URL`, `BAD_OPTIONS`) for a value that is not a whole number of milliseconds (or seconds).
 */
export function postgresPoolConfig(
  connectionString: string,
  limits: PostgresConnectionLimits = {},
): PostgresPoolConfig {
  const url = new URL(connectionString);
  const chosen: Required<PostgresConnectionLimits> = { ...DEFAULT_POSTGRES_LIMITS };
  for (const key of Object.keys(DEFAULT_POSTGRES_LIMITS) as (keyof PostgresConnectionLimits)[]) {
    const value = limits[key];
    if (value !== undefined) chosen[key] = checkedMs(value, key);
  }
  for (const [name, { limit, unitMs }] of Object.entries(URL_PARAMETERS)) {
    const text = url.searchParams.get(name);
    if (text === null) continue;
    chosen[limit] = checkedMs(urlValue(name, text) * unitMs, name);
    url.searchParams.delete(name);
  }
  const keepalives = url.searchParams.get('keepalives');
  if (keepalives !== null) {
    if (keepalives !== '0' && keepalives !== '1')
      throw new StoreError(
        'BAD_STORE_URL',
        `store URL parameter keepalives must be 0 or 1, got '${keepalives}'`,
      );
    if (keepalives === '0') chosen.keepAliveIdleMs = 0;
    url.searchParams.delete('keepalives');
  }
  // The URL's own session options come after ours: for a setting given twice, PostgreSQL keeps the last.
  const theirs = url.searchParams.get('options');
  url.searchParams.delete('options');
  const ours =
    `-c lock_timeout=${chosen.lockTimeoutMs} -c statement_timeout=${chosen.statementTimeoutMs}` +
    ` -c idle_in_transaction_session_timeout=${chosen.idleInTransactionTimeoutMs}`;
  return {
    connectionString: url.toString(),
    options: theirs === null || theirs.trim() === '' ? ours : `${ours} ${theirs}`,
    query_timeout: chosen.queryTimeoutMs,
    connectionTimeoutMillis: chosen.connectTimeoutMs,
    keepAlive: chosen.keepAliveIdleMs > 0,
    keepAliveInitialDelayMillis: chosen.keepAliveIdleMs,
  };
}

/**
 * The configuration of the pool migrations run on: the same, without the statement limits. A migration may build
 * an index over a large table, which takes as long as it takes; locks, idle transactions and connections keep
 * their limits.
 */
export function migrationPoolConfig(config: PostgresPoolConfig): PostgresPoolConfig & { max: number } {
  return {
    ...config,
    // Appended, so it overrides the statement_timeout set before it (the URL's own included).
    options: `${config.options} -c statement_timeout=0`,
    query_timeout: 0,
    max: 1,
  };
}
