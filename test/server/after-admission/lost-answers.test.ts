/**
 * Lost answers through the whole server (docs/semantics.md §4 "Lost answers", ADR 0052): a real server on a real
 * store (memory, SQLite, PostgreSQL) whose driver runs a write and then loses its answer, at each write a send
 * makes. Whatever the worker, admission or the group commit then retry, the task ends as one application of every
 * write would leave it: one artifact, one COMPLETED, events numbered without a gap or a repeat; the agent runs
 * exactly once; and a keyed send whose claim-and-create answer was lost starts its agent instead of leaving its
 * task to be failed as lost.
 */
import BetterSqlite3 from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentExecutor } from '../../../src/server/agent-executor.js';
import { ManualClock } from '../../../src/store/clock.js';
import { MemoryTaskStore } from '../../../src/store/memory/memory-task-store.js';
import { PostgresTaskStore } from '../../../src/store/postgres/index.js';
import { SqliteTaskStore } from '../../../src/store/sqlite/index.js';
import type { TaskStore } from '../../../src/store/task-store.js';
import {
  DriverFaults,
  faultyDatabase,
  faultyMemoryStore,
  faultyPool,
  type DriverFault,
} from '../../store-contract/fixtures/driver-faults.js';
import { freshSchema, pgBackend, type PgBackend } from '../../store-contract/pg-backend.js';
import {
  ANON,
  errorOf,
  keyedMessage,
  send,
  serversClosedAfterEach,
  taskOf,
  until,
} from '../duplicate-safety/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-lost-answers-'));
let pg: PgBackend;
const schemas: string[] = [];
const closers: (() => void)[] = [];
let n = 0;

beforeAll(async () => {
  pg = await pgBackend();
});
afterAll(async () => {
  for (const c of closers) c();
  for (const s of schemas) await pg.pool().query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  await pg.end();
  rmSync(dir, { recursive: true, force: true });
});

type StoreName = 'memory' | 'sqlite' | 'postgres';

/** A real store of `name` whose driver goes through `faults`. */
async function openStore(name: StoreName, clock: ManualClock, faults: DriverFaults): Promise<TaskStore> {
  if (name === 'memory') return faultyMemoryStore(new MemoryTaskStore({ clock }), faults);
  if (name === 'sqlite') {
    const db = new BetterSqlite3(join(dir, `s-${++n}.db`));
    closers.push(() => db.close());
    const store = new SqliteTaskStore({ database: faultyDatabase(db, faults), clock, pollIntervalMs: 10 });
    await store.migrate();
    return store;
  }
  const schema = freshSchema();
  schemas.push(schema);
  const store = new PostgresTaskStore({
    pool: faultyPool(pg.pool(), faults),
    schema,
    clock,
    pollIntervalMs: 10,
  });
  await store.migrate();
  return store;
}

/** An agent that reports, makes an artifact and completes; counts its runs. */
function countingAgent(): { agent: AgentExecutor; runs: () => number } {
  let runs = 0;
  return {
    runs: () => runs,
    agent: {
      async execute(ctx) {
        runs++;
        await ctx.working('on it');
        await ctx.artifact({ name: 'out', parts: [{ text: `done: ${ctx.userText}` }] });
        await ctx.complete();
      },
    },
  };
}

describe.each(['memory', 'sqlite', 'postgres'] as const)('lost answers through the server on %s', (name) => {
  const server = serversClosedAfterEach();

  async function setUp(o: { storeWriteBudgetMs?: number } = {}) {
    const faults = new DriverFaults();
    const clock = new ManualClock();
    const store = await openStore(name, clock, faults);
    const { agent, runs } = countingAgent();
    const t = server({ clock, store, agent, ...o });
    return { t, store, faults, runs };
  }

  for (const fault of ['lose-answer', 'fail-before'] as const satisfies readonly DriverFault[]) {
    it(`the agent's write (${fault}): stored once, the send answered COMPLETED, the agent run once`, async () => {
      if (name === 'postgres' && pg.kind !== 'server') return;
      const { t, store, faults, runs } = await setUp();
      // Write 1 is the claim-and-create; write 2 the agent's burst (working, artifact, COMPLETED in one commit).
      faults.arm(fault, 1, 1);
      const done = taskOf(await send(t.ep, 'jsonrpc', keyedMessage('hello')));
      expect(faults.hits).toBe(1);
      expect(done.status.state).toBe('TASK_STATE_COMPLETED');
      expect(done.artifacts).toHaveLength(1);
      await expectEvents(store, done.id);
      expect(runs()).toBe(1);
    });

    it(`a keyed send's claim-and-create (${fault}): the agent starts once and the task completes`, async () => {
      if (name === 'postgres' && pg.kind !== 'server') return;
      const { t, store, faults, runs } = await setUp();
      faults.arm(fault);
      const msg = keyedMessage('hello');
      const done = taskOf(await send(t.ep, 'jsonrpc', msg));
      expect(faults.hits).toBe(1);
      expect(done.status.state).toBe('TASK_STATE_COMPLETED');
      await expectEvents(store, done.id);
      // The caller's own retry replays the same task.
      const again = taskOf(await send(t.ep, 'jsonrpc', msg));
      expect(again.id).toBe(done.id);
      expect(runs()).toBe(1);
    });
  }

  it('a claim-and-create whose answers are lost for longer than the budget: the send fails, then the task starts once the store answers', async () => {
    if (name === 'postgres' && pg.kind !== 'server') return;
    const { t, store, faults, runs } = await setUp({ storeWriteBudgetMs: 200 });
    faults.armAll('lose-answer');
    const msg = keyedMessage('hello');
    const refused = errorOf(await send(t.ep, 'jsonrpc', msg));
    expect(refused.reason).toBe('INTERNAL_ERROR');
    expect(runs()).toBe(0);
    faults.clear();
    // Looked for with backoff, found untouched, taken over and started: not failed as lost.
    let taskId = '';
    await until(
      async () => {
        const key = await store.getKey(ANON, String(msg.metadata?.['a2a-rust.com/idempotency-key']));
        taskId = key?.taskId ?? '';
        return (
          taskId !== '' && (await store.getTask(ANON, taskId))?.task.status.state === 'TASK_STATE_COMPLETED'
        );
      },
      10_000,
      'the lost creation completed',
    );
    expect(runs()).toBe(1);
    const task = (await store.getTask(ANON, taskId))!.task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    await expectEvents(store, taskId);
    // The caller's retry replays it.
    expect(taskOf(await send(t.ep, 'jsonrpc', msg)).id).toBe(taskId);
    expect(runs()).toBe(1);
  });

  it('a lost creation whose takeover answer is lost too: the takeover is sent again with its write id, and the task starts once', async () => {
    if (name === 'postgres' && pg.kind !== 'server') return;
    const { t, store, faults, runs } = await setUp({ storeWriteBudgetMs: 200 });
    faults.armAll('lose-answer');
    const msg = keyedMessage('hello');
    expect(errorOf(await send(t.ep, 'jsonrpc', msg)).reason).toBe('INTERNAL_ERROR');
    faults.clear();
    // The next write is the search's takeover (fence 1 -> 2): it lands, and its answer is lost.
    faults.arm('lose-answer');
    let taskId = '';
    await until(
      async () => {
        const key = await store.getKey(ANON, String(msg.metadata?.['a2a-rust.com/idempotency-key']));
        taskId = key?.taskId ?? '';
        return (
          taskId !== '' && (await store.getTask(ANON, taskId))?.task.status.state === 'TASK_STATE_COMPLETED'
        );
      },
      10_000,
      'the lost creation completed after its lost takeover',
    );
    expect(faults.hits).toBeGreaterThan(0);
    expect(faults.pending).toBe(0);
    expect(runs()).toBe(1);
    await expectEvents(store, taskId);
  });
});

/** The stored events of a task: numbered 1..n without a repeat, one artifact and one COMPLETED. */
async function expectEvents(store: TaskStore, taskId: string): Promise<void> {
  const events = await store.readEvents(ANON, taskId, 0);
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  const kinds = events.map((e) =>
    'artifactUpdate' in e.event
      ? 'artifact'
      : 'statusUpdate' in e.event
        ? e.event.statusUpdate.status.state
        : '?',
  );
  expect(kinds.filter((k) => k === 'TASK_STATE_COMPLETED')).toHaveLength(1);
  expect(kinds.filter((k) => k === 'artifact')).toHaveLength(1);
}
