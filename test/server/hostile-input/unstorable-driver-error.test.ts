/**
 * The second line behind the door check (ADR 0059): text that still reaches PostgreSQL and is refused there
 * (SQLSTATE 22021 for U+0000 in `text`, 22P05 for `\u0000` in `jsonb`) is answered -32602 / 400 INVALID_PARAMS,
 * never INTERNAL, and the slip is logged. What slips here is a principal: the host's `authenticate` hook derives
 * it from the caller's credentials, and the door does not judge it, so a NUL in it reaches the store's `owner`
 * column. Real PostgreSQL throughout (the server on 127.0.0.1:5432, or PGlite where none answers).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUnstorableTextError } from '../../../src/store/sql/unstorable-text-error.js';
import { ManualClock } from '../../../src/store/clock.js';
import type { PgPoolLike } from '../../../src/store/postgres/index.js';
import { pgBackend, type PgBackend } from '../../store-contract/pg-backend.js';
import {
  BINDINGS,
  freshKey,
  getTaskRequest,
  keyedMessage,
  makeServer,
  sendRequest,
  type TestServer,
} from '../duplicate-safety/helpers.js';
import { closeStores, openStore, type OpenedStore } from './server-stores.js';
import { listTasksRequest, readCall, type CallAnswer } from './wire.js';

afterAll(closeStores);

/** The error a real PostgreSQL raises for `sql` with `args`. */
async function pgError(pool: PgPoolLike, sql: string, args: unknown[]): Promise<unknown> {
  try {
    await pool.query(sql, args);
  } catch (err) {
    return err;
  }
  throw new Error(`expected PostgreSQL to refuse ${sql}`);
}

describe('a driver error caused by unstorable text', () => {
  let backend: PgBackend;
  let pool: PgPoolLike;
  beforeAll(async () => {
    backend = await pgBackend();
    pool = backend.pool();
  });
  afterAll(() => backend.end());

  it('is recognised from what PostgreSQL really raises, also when wrapped; other errors are not', async () => {
    const nulInText = await pgError(pool, 'SELECT $1::text', ['a\u0000b']);
    const nulInJsonb = await pgError(pool, 'SELECT $1::jsonb', ['"a\\u0000b"']);
    const notANumber = await pgError(pool, 'SELECT $1::int', ['x']);
    expect(isUnstorableTextError(nulInText)).toBe(true);
    expect(isUnstorableTextError(nulInJsonb)).toBe(true);
    expect(isUnstorableTextError(new Error('the commit failed', { cause: nulInText }))).toBe(true);
    expect(isUnstorableTextError(notANumber)).toBe(false);
    expect(isUnstorableTextError(new Error('invalid byte sequence for encoding "UTF8": 0x00'))).toBe(false);
  });
});

describe('a principal holding U+0000 on the PostgreSQL store', () => {
  let t: TestServer;
  let opened: OpenedStore;
  beforeAll(async () => {
    const clock = new ManualClock();
    opened = await openStore('postgres', clock);
    // A store write that fails is retried for storeWriteBudgetMs before the call answers (10 s by default, ADR
    // 0052): the answer, not the retrying, is what this file checks, so the keyed send's claim is tried once.
    t = makeServer({
      clock,
      store: opened.store,
      storeWriteBudgetMs: 0,
      http: { authenticate: () => 'alice\u0000' },
    });
  });
  afterAll(async () => {
    await t.close();
    await opened.cleanup();
  });

  function isInvalidParams(a: CallAnswer): boolean {
    return !a.ok && a.error.reason === 'INVALID_PARAMS' && (a.error.code === -32602 || a.httpStatus === 400);
  }

  it.each(BINDINGS)(
    '%s: GetTask, ListTasks and a keyed send answer INVALID_PARAMS, never INTERNAL',
    async (binding) => {
      const before = t.logger.entries.length;
      const calls = [
        getTaskRequest(t.ep, binding, 'some-task'),
        listTasksRequest(t.ep, binding),
        sendRequest(t.ep, binding, false, keyedMessage('hello', freshKey())),
      ];
      for (const req of calls) {
        const answer = await readCall(binding, await t.ep.fetch(req));
        expect(isInvalidParams(answer), JSON.stringify(answer)).toBe(true);
      }
      expect(t.agent.executions).toHaveLength(0);
      // Each slip leaves a warning (the door should have caught it), and none is logged as an internal error.
      const lines = t.logger.entries.slice(before);
      expect(lines.filter((l) => l.level === 'warn' && /refused text/.test(l.message))).toHaveLength(
        calls.length,
      );
      expect(lines.filter((l) => l.level === 'error')).toEqual([]);
    },
  );
});
