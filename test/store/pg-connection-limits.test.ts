/**
 * The pool configuration `openStore` hands pg (ADR 0063): the documented defaults, limits from code over them,
 * the store URL's parameters over both (removed from the URL pg sees), and a clear `StoreError` for a value that
 * is not a whole number, before anything connects.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_POSTGRES_LIMITS,
  migrationPoolConfig,
  postgresPoolConfig,
} from '../../src/store/postgres/pg-connection-limits.js';
import { StoreError } from '../../src/store/sql/store-error.js';

const URL_BASE = 'postgres://app@db.internal:5432/agents';

describe('postgresPoolConfig', () => {
  it('sets every limit by default', () => {
    expect(postgresPoolConfig(URL_BASE)).toEqual({
      connectionString: URL_BASE,
      options:
        '-c lock_timeout=10000 -c statement_timeout=15000 -c idle_in_transaction_session_timeout=20000',
      query_timeout: 20_000,
      connectionTimeoutMillis: 10_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    // The query timeout is above the statement timeout: a slow but live server answers first.
    expect(DEFAULT_POSTGRES_LIMITS.queryTimeoutMs).toBeGreaterThan(
      DEFAULT_POSTGRES_LIMITS.statementTimeoutMs,
    );
  });

  it('takes limits from code, and from the URL over them', () => {
    const config = postgresPoolConfig(
      `${URL_BASE}?sslmode=require&query_timeout=3000&connect_timeout=2&keepalives_idle=30&lock_timeout=0`,
      { queryTimeoutMs: 9_000, statementTimeoutMs: 2_500, keepAliveIdleMs: 0 },
    );
    expect(config).toEqual({
      // Only the parameters pg should see remain.
      connectionString: `${URL_BASE}?sslmode=require`,
      options: '-c lock_timeout=0 -c statement_timeout=2500 -c idle_in_transaction_session_timeout=20000',
      query_timeout: 3_000,
      connectionTimeoutMillis: 2_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 30_000,
    });
  });

  it('keepalives=0 turns keep-alive off; a URL options value follows ours', () => {
    const config = postgresPoolConfig(
      `${URL_BASE}?keepalives=0&options=${encodeURIComponent('-c search_path=x')}`,
    );
    expect(config.keepAlive).toBe(false);
    expect(config.options.endsWith(' -c search_path=x')).toBe(true);
    expect(config.connectionString).toBe(URL_BASE);
  });

  it.each([
    ['query_timeout=soon', 'query_timeout'],
    ['statement_timeout=-1', 'statement_timeout'],
    ['connect_timeout=1.5', 'connect_timeout'],
    ['keepalives=yes', 'keepalives'],
    ['idle_in_transaction_session_timeout=99999999999', 'idle_in_transaction_session_timeout'],
  ])('refuses %s with BAD_STORE_URL naming the parameter', (param, name) => {
    let caught: unknown;
    try {
      postgresPoolConfig(`${URL_BASE}?${param}`);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(StoreError);
    expect((caught as StoreError).code).toBe('BAD_STORE_URL');
    expect((caught as StoreError).message).toContain(name);
  });

  it('refuses a limit from code that is not whole milliseconds from 0', () => {
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 31]) {
      expect(() => postgresPoolConfig(URL_BASE, { queryTimeoutMs: bad })).toThrow(
        expect.objectContaining({ code: 'BAD_OPTIONS' }) as Error,
      );
    }
  });

  it('gives migrations no statement or query limit, and one connection', () => {
    const config = migrationPoolConfig(postgresPoolConfig(`${URL_BASE}?statement_timeout=100`));
    expect(config.query_timeout).toBe(0);
    expect(config.max).toBe(1);
    expect(config.options.endsWith('-c statement_timeout=0')).toBe(true);
  });
});
