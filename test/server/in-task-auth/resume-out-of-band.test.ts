/**
 * In-task authorization (A2A §7.6, ADR 0054): an agent parks its task in AUTH_REQUIRED; the credential arrives
 * out of band and the host calls `resumeTask`, or the client sends a follow-up message. Either way exactly one
 * turn runs: a resume racing another resume (two replicas on one store, a callback delivered twice) or racing a
 * follow-up message starts one turn, and a stream opened while the task waited stays open through it. Real
 * stores: memory and SQLite files shared by two servers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Message, StreamResponse, Task } from '../../../src/protocol/model.js';
import { A2ARequestHandler } from '../../../src/server/a2a-request-handler.js';
import type { AgentContext } from '../../../src/server/agent-executor.js';
import { localCallContext } from '../../../src/server/call-context.js';
import { MemoryTaskStore } from '../../../src/store/memory/index.js';
import { SqliteTaskStore } from '../../../src/store/sqlite/index.js';
import type { TaskStore } from '../../../src/store/task-store.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-in-task-auth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** Every turn the agent ran, by how it started. */
interface Turns {
  first: number;
  resumed: string[];
  continued: string[];
}

function agentCountingInto(turns: Turns) {
  return {
    async execute(ctx: AgentContext): Promise<void> {
      if (ctx.resumedOutOfBand) {
        turns.resumed.push(ctx.taskId);
        // Still WORKING for a while: a racing resume that lost the compare-and-set reads it so.
        await new Promise((r) => setTimeout(r, 50));
        await ctx.complete('authorized out of band');
        return;
      }
      if (ctx.isContinuation) {
        turns.continued.push(ctx.taskId);
        await ctx.complete('authorized by message');
        return;
      }
      turns.first++;
      await ctx.requireAuth('sign in to the ledger first');
    },
  };
}

/** Two servers on one store (a second replica), or one, on a real backend. */
interface Setup {
  readonly a: A2ARequestHandler;
  readonly b: A2ARequestHandler;
  readonly turns: Turns;
  close(): Promise<void>;
}

const BACKENDS: readonly [string, () => Promise<[TaskStore, TaskStore]>][] = [
  [
    'memory',
    () => {
      const s = new MemoryTaskStore();
      return Promise.resolve([s, s]);
    },
  ],
  [
    'sqlite (two stores on one file)',
    async () => {
      const path = join(dir, `auth-${++files}.db`);
      const one = new SqliteTaskStore({ path, pollIntervalMs: 10 });
      await one.migrate();
      const two = new SqliteTaskStore({ path, pollIntervalMs: 10 });
      return [one, two];
    },
  ],
];

async function setUp(open: () => Promise<[TaskStore, TaskStore]>): Promise<Setup> {
  const [s1, s2] = await open();
  const turns: Turns = { first: 0, resumed: [], continued: [] };
  const card = { name: 'auth', description: 'asks for a credential', capabilities: { streaming: true } };
  const a = new A2ARequestHandler({ agent: agentCountingInto(turns), card, store: s1, recovery: false });
  const b = new A2ARequestHandler({ agent: agentCountingInto(turns), card, store: s2, recovery: false });
  return {
    a,
    b,
    turns,
    async close() {
      await a.close();
      if (s2 !== s1) await b.close();
    },
  };
}

let n = 0;
function user(text: string, extra: Partial<Message> = {}): Message {
  return { messageId: `m-${Date.now()}-${++n}`, role: 'ROLE_USER', parts: [{ text }], ...extra };
}

async function parked(h: A2ARequestHandler, principal?: string): Promise<Task> {
  const ctx = localCallContext(principal === undefined ? {} : { principal });
  const res = await h.sendMessage({ message: user('pay invoice 7') }, ctx);
  if (!('task' in res)) throw new Error('expected a task');
  expect(res.task.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
  return res.task;
}

async function until(f: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function stateOf(h: A2ARequestHandler, id: string, principal?: string): Promise<string> {
  const ctx = localCallContext(principal === undefined ? {} : { principal });
  return (await h.getTask({ id }, ctx)).status.state;
}

describe.each(BACKENDS)('resumeTask on %s', (_name, open) => {
  it('resumes a task waiting in AUTH_REQUIRED: one fenced write to WORKING, one turn, then COMPLETED', async () => {
    const s = await setUp(open);
    try {
      const task = await parked(s.a);
      const res = await s.a.resumeTask({ taskId: task.id }, { note: 'authorized, resuming' });
      expect(res.resumed).toBe(true);
      expect(res.task.status.state).toBe('TASK_STATE_WORKING');
      expect(res.task.status.message?.parts).toEqual([{ text: 'authorized, resuming' }]);
      await until(async () => (await stateOf(s.a, task.id)) === 'TASK_STATE_COMPLETED');
      expect(s.turns).toEqual({ first: 1, resumed: [task.id], continued: [] });
      // A callback delivered twice: the task no longer waits, nothing starts.
      const again = await s.a.resumeTask({ taskId: task.id });
      expect(again.resumed).toBe(false);
      expect(again.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(s.turns.resumed).toHaveLength(1);
    } finally {
      await s.close();
    }
  });

  it('two replicas resuming the same task at once start exactly one turn', async () => {
    const s = await setUp(open);
    try {
      const tasks = await Promise.all(Array.from({ length: 8 }, () => parked(s.a)));
      const results = await Promise.all(
        tasks.flatMap((t) => [
          s.a.resumeTask({ taskId: t.id }),
          s.b.resumeTask({ taskId: t.id }),
          s.b.resumeTask({ taskId: t.id }),
        ]),
      );
      for (const t of tasks) await until(async () => (await stateOf(s.a, t.id)) === 'TASK_STATE_COMPLETED');
      expect(results.filter((r) => r.resumed)).toHaveLength(tasks.length);
      expect([...s.turns.resumed].sort()).toEqual(tasks.map((t) => t.id).sort());
    } finally {
      await s.close();
    }
  });

  it('a resume racing a follow-up message starts one turn, whichever wins', async () => {
    const s = await setUp(open);
    try {
      const tasks = await Promise.all(Array.from({ length: 8 }, () => parked(s.a)));
      await Promise.all(
        tasks.flatMap((t) => [
          s.b.resumeTask({ taskId: t.id }),
          s.a
            .sendMessage(
              { message: user('here is my token', { taskId: t.id, contextId: t.contextId }) },
              localCallContext(),
            )
            .catch((err: unknown) => err),
        ]),
      );
      for (const t of tasks) await until(async () => (await stateOf(s.a, t.id)) === 'TASK_STATE_COMPLETED');
      const ran = [...s.turns.resumed, ...s.turns.continued].sort();
      expect(ran).toEqual(tasks.map((t) => t.id).sort());
    } finally {
      await s.close();
    }
  });

  it('a task of another principal is not found, and nothing is written', async () => {
    const s = await setUp(open);
    try {
      const task = await parked(s.a, 'alice');
      await expect(s.a.resumeTask({ taskId: task.id, principal: 'mallory' })).rejects.toMatchObject({
        reason: 'TASK_NOT_FOUND',
      });
      expect(await stateOf(s.a, task.id, 'alice')).toBe('TASK_STATE_AUTH_REQUIRED');
      const res = await s.a.resumeTask({ taskId: task.id, principal: 'alice' });
      expect(res.resumed).toBe(true);
      await until(async () => (await stateOf(s.a, task.id, 'alice')) === 'TASK_STATE_COMPLETED');
    } finally {
      await s.close();
    }
  });

  it('a stream opened while the task waits for authorization stays open through the resume', async () => {
    const s = await setUp(open);
    try {
      const task = await parked(s.a);
      const events: StreamResponse[] = [];
      const stream = (async () => {
        for await (const ev of await s.b.subscribeToTask({ id: task.id }, localCallContext()))
          events.push(ev);
      })();
      await until(() => events.length > 0);
      await s.a.resumeTask({ taskId: task.id });
      await stream;
      const states = events.map((e) =>
        'task' in e ? e.task.status.state : 'statusUpdate' in e ? e.statusUpdate.status.state : 'other',
      );
      expect(states).toEqual(['TASK_STATE_AUTH_REQUIRED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
    } finally {
      await s.close();
    }
  });
});

describe('resumeTask refuses what it cannot resume', () => {
  it('an unknown task is TASK_NOT_FOUND; a task waiting for input is not resumed', async () => {
    const store = new MemoryTaskStore();
    const h = new A2ARequestHandler({
      agent: { execute: (ctx) => ctx.requireInput('which invoice?') },
      card: { name: 'ask', description: 'asks for input' },
      store,
      recovery: false,
    });
    try {
      await expect(h.resumeTask({ taskId: 'no-such-task' })).rejects.toMatchObject({
        reason: 'TASK_NOT_FOUND',
      });
      const res = await h.sendMessage({ message: user('pay') }, localCallContext());
      const task = 'task' in res ? res.task : undefined;
      expect(task?.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const r = await h.resumeTask({ taskId: task!.id });
      expect(r).toMatchObject({ resumed: false, task: { status: { state: 'TASK_STATE_INPUT_REQUIRED' } } });
    } finally {
      await h.close();
    }
  });
});
