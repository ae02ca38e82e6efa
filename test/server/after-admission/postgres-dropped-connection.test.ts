/**
 * A real fault on a real PostgreSQL: while a blocking send waits for a slow agent, another connection terminates
 * the store pool's backends (`pg_terminate_backend`) with the wait's poll in flight. The send is answered with
 * the task's latest known state, never -32603 / HTTP 500, and the error is logged with the task id (ADR 0029).
 *
 * To have a poll in flight at the moment of the kill (rather than between polls, which the pool absorbs by
 * opening a new connection), the test holds an ACCESS EXCLUSIVE lock on the tasks table so the poll's SELECT
 * waits on it, and kills the pool's backends once one is seen waiting. Skipped on PGlite (one in-process
 * connection: nothing to terminate).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/store/clock.js';
import { PostgresTaskStore } from '../../../src/store/postgres/index.js';
import { freshSchema, pgBackend, type PgBackend } from '../../store-contract/pg-backend.js';
import {
  ANON,
  BINDINGS,
  getTask,
  send,
  serversClosedAfterEach,
  taskOf,
  until,
  userMessage,
  withTimeout,
  type Binding,
} from '../duplicate-safety/helpers.js';

let backend: PgBackend;
const pools: pg.Pool[] = [];
const schemas: string[] = [];

beforeAll(async () => {
  backend = await pgBackend();
});
afterAll(async () => {
  if (backend.kind === 'server') {
    const admin = new pg.Client({ connectionString: backend.url });
    await admin.connect();
    for (const s of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
    await admin.end();
  }
  await Promise.all(pools.map((p) => p.end()));
  await backend.end();
});

describe.each(BINDINGS)(
  'PostgreSQL backends terminated during a blocking wait, over %s',
  (binding: Binding) => {
    const server = serversClosedAfterEach();

    it('the send answers with the latest known task state and the error is logged with the task id', async (ctx) => {
      if (backend.kind !== 'server') ctx.skip();
      const appName = `a2a_once_wait_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
      const pool = new pg.Pool({ connectionString: backend.url, application_name: appName, max: 4 });
      pool.on('error', () => undefined); // idle clients killed by the test
      pools.push(pool);
      // Every connection the pool may use is opened now, so none is still being established when the test
      // locks the table and kills the backends (the kill must find the poll's query in flight).
      await Promise.all([1, 2, 3, 4].map(() => pool.query('SELECT pg_sleep(0.05)')));
      const schema = freshSchema();
      schemas.push(schema);
      const clock = new ManualClock();
      const store = new PostgresTaskStore({ pool, schema, clock, pollIntervalMs: 20 });
      await store.migrate();
      const t = server({ store, clock });
      const admin = new pg.Client({ connectionString: backend.url });
      await admin.connect();
      try {
        const pending = send(t.ep, binding, userMessage('hold while the database restarts'));
        await until(() => t.agent.executions.length === 1, 5000, 'agent started');
        const taskId = t.agent.executions[0]!.taskId;
        await until(
          async () => (await store.getTask(ANON, taskId))?.task.status.state === 'TASK_STATE_WORKING',
          5000,
          'task working',
        );

        await admin.query('BEGIN');
        await admin.query(`LOCK TABLE "${schema}".a2a_tasks IN ACCESS EXCLUSIVE MODE`);
        await until(
          async () =>
            (
              await admin.query(
                `SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`,
                [appName],
              )
            ).rows.length > 0,
          5000,
          'the wait poll blocked on the lock',
        ).catch(async (err: unknown) => {
          const rows = await admin.query(
            'SELECT state, wait_event_type, left(query, 60) AS q FROM pg_stat_activity WHERE application_name = $1',
            [appName],
          );
          const stats = { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
          throw new Error(
            `${String(err)}: backends ${JSON.stringify(rows.rows)}, pool ${JSON.stringify(stats)}`,
          );
        });
        const killed = await admin.query(
          'SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1',
          [appName],
        );
        expect(killed.rows.length).toBeGreaterThan(0);
        await admin.query('ROLLBACK');

        const answer = await withTimeout(pending, 10_000, 'answer after the backends were terminated');
        expect(answer.httpStatus).toBe(200);
        const task = taskOf(answer);
        expect(task.id).toBe(taskId);
        expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(task.status.state);
        const warned = t.logger.entries.find((e) => e.level === 'warn' && e.fields?.taskId === taskId);
        expect(warned, JSON.stringify(t.logger.entries)).toBeDefined();

        // The pool reconnects: the agent finishes its one run and the task is readable again. (A read may still
        // draw a killed idle connection before the pool has noticed it died: that read fails and is repeated.)
        t.agent.release();
        await until(
          async () =>
            (await store.getTask(ANON, taskId).catch(() => undefined))?.task.status.state ===
            'TASK_STATE_COMPLETED',
          10_000,
          'task completed',
        );
        expect(taskOf(await getTask(t.ep, binding, taskId)).status.state).toBe('TASK_STATE_COMPLETED');
        expect(t.agent.executionsOf(taskId)).toHaveLength(1);
      } finally {
        await admin.query('ROLLBACK').catch(() => undefined);
        await admin.end();
      }
    });
  },
);
