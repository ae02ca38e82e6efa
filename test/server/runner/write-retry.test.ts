/**
 * A worker's write that hits a transient store error is retried with capped exponential backoff (ADR 0029): the
 * agent's writes and the runner's own final complete / fail. If the store recovers in time the task ends as the
 * agent meant; if it recovers only later the task ends FAILED with a status message; if it never recovers, an
 * error line says the task is left unfinished and why. A fence refusal is never retried. The agent runs once.
 *
 * Real stores (memory, SQLite) behind a thin wrapper whose commits fail on demand; backoff sleeps advance the
 * ManualClock instead of waiting, so "the store is down for 30 s" is exact and instant.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Message, Task } from '../../../src/protocol/model.js';
import type { AgentContext, AgentExecutor } from '../../../src/server/agent-executor.js';
import { Runner } from '../../../src/server/runner/runner.js';
import { ManualClock } from '../../../src/store/clock.js';
import type { StoredTask } from '../../../src/store/records.js';
import type { TaskStore, TaskWrite } from '../../../src/store/task-store.js';
import { BACKENDS, type Backend } from '../after-admission/backends.js';
import { faultyStore, type FaultControl } from '../after-admission/faulty-store.js';
import { ANON, CapturingLogger } from '../duplicate-safety/helpers.js';

/** The schedule under test, written out (ADR 0029), with jitter pinned to its top so delays are exact. */
const SCHEDULE = { firstDelayMs: 50, maxDelayMs: 2000, writeBudgetMs: 10_000, failBudgetMs: 60_000 };

interface Run {
  readonly real: TaskStore;
  readonly control: FaultControl;
  readonly clock: ManualClock;
  readonly logger: CapturingLogger;
  /** Every backoff sleep, in ms. */
  readonly sleeps: number[];
  readonly taskId: string;
  readonly start: number;
  /** The task as stored after the turn. */
  stored(): Promise<StoredTask>;
}

/** Admits one task on a fresh store, runs one turn of `agent` under `plan`, and waits for the turn to end. */
async function runTurn(
  backend: Backend,
  agent: AgentExecutor,
  plan: (n: number, write: TaskWrite, clock: ManualClock) => 'pass' | 'throw' | 'apply-then-throw',
  afterStart?: (r: Run) => Promise<void>,
): Promise<Run> {
  const clock = new ManualClock();
  const real = await backend.open(clock);
  const { store, control } = faultyStore(real);
  control.commitPlan = (n, write) => plan(n, write, clock);
  const logger = new CapturingLogger();
  const sleeps: number[] = [];
  const retry = {
    ...SCHEDULE,
    random: () => 1,
    sleep: (ms: number) => {
      sleeps.push(ms);
      clock.advance(ms);
      return Promise.resolve();
    },
  };
  // The policy is the Runner's fifth argument; older Runners ignore it (and then never retry).
  const runner = new (Runner as unknown as new (...a: unknown[]) => Runner)(
    store,
    agent,
    logger,
    clock,
    retry,
  );
  const taskId = randomUUID();
  const contextId = randomUUID();
  const message: Message = {
    messageId: randomUUID(),
    role: 'ROLE_USER',
    parts: [{ text: 'work' }],
    taskId,
    contextId,
  };
  const task: Task = {
    id: taskId,
    contextId,
    status: { state: 'TASK_STATE_SUBMITTED', timestamp: new Date(clock.now()).toISOString() },
    history: [message],
  };
  const created = await real.createTask(ANON, { task });
  if (created.outcome !== 'created') throw new Error(created.outcome);
  const run: Run = {
    real,
    control,
    clock,
    logger,
    sleeps,
    taskId,
    start: clock.now(),
    stored: async () => {
      const r = await real.getTask(ANON, taskId);
      if (!r) throw new Error('task gone');
      return r;
    },
  };
  void runner.start({
    scope: ANON,
    record: created.record,
    message,
    isContinuation: false,
    requestedExtensions: [],
    principal: undefined,
  });
  await afterStart?.(run);
  await runner.drain();
  return run;
}

/** Resolves when `signal` aborts, or after `ms` if it does not. */
function abortedWithin(signal: AbortSignal, ms: number): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}

/** Down (every commit throws) from the first commit until `ms` of clock time later. */
function downFor(ms: number): (n: number, w: TaskWrite, clock: ManualClock) => 'pass' | 'throw' {
  let until: number | undefined;
  return (_n, _w, clock) => {
    until ??= clock.now() + ms;
    return clock.now() < until ? 'throw' : 'pass';
  };
}

/** An agent that reports WORKING, one artifact, and returns (the runner completes it), counting its runs. */
class CountingAgent implements AgentExecutor {
  runs = 0;
  /** `flushWorking`: store WORKING on its own before going on (otherwise it goes with the artifact, ADR 0048). */
  constructor(private readonly flushWorking = false) {}
  async execute(ctx: AgentContext): Promise<void> {
    this.runs++;
    await ctx.working('on it');
    if (this.flushWorking) await ctx.flush();
    await ctx.artifact({ artifactId: 'out', parts: [{ text: 'result' }] });
  }
}

function sum(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

function retryWarnings(r: Run) {
  return r.logger.entries.filter((e) => e.level === 'warn' && e.fields?.taskId === r.taskId);
}

describe.each(BACKENDS.map((b) => [b.name, b] as const))('worker writes on %s', (_name, backend) => {
  it('a store down for 5 s: the write is retried, the task ends COMPLETED, the agent ran once', async () => {
    const agent = new CountingAgent();
    const r = await runTurn(backend, agent, downFor(5000));
    const stored = await r.stored();
    expect(stored.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(stored.task.artifacts).toEqual([{ artifactId: 'out', parts: [{ text: 'result' }] }]);
    expect(agent.runs).toBe(1);
    // Backoff from 50 ms doubling: 50+100+200+400+800+1600+2000 = 5150 ms is the first retry past the outage.
    expect(r.sleeps).toEqual([50, 100, 200, 400, 800, 1600, 2000]);
    // Every failure is logged with the task id; events are not doubled by the retries.
    expect(retryWarnings(r)).toHaveLength(7);
    expect((await r.real.readEvents(ANON, r.taskId, 0)).map((e) => Object.keys(e.event)[0])).toEqual([
      'statusUpdate',
      'artifactUpdate',
      'statusUpdate',
    ]);
  });

  it("the runner's own final complete is retried too", async () => {
    const agent = new CountingAgent();
    // Only writes that complete the task fail, three times.
    let completes = 0;
    const r = await runTurn(backend, agent, (_n, w) =>
      w.task.status.state === 'TASK_STATE_COMPLETED' && ++completes <= 3 ? 'throw' : 'pass',
    );
    expect((await r.stored()).task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(r.sleeps).toEqual([50, 100, 200]);
    expect(agent.runs).toBe(1);
  });

  it('a store down for 30 s: the write gives up after its budget and the task ends FAILED with a message', async () => {
    const seen: { error?: string; aborted?: boolean; laterWrite?: string; abortedAfter?: boolean } = {};
    let runs = 0;
    const agent: AgentExecutor = {
      async execute(ctx) {
        runs++;
        try {
          // Early in the turn: accepted at once, stored with the next write of the burst (ADR 0048).
          await ctx.working('on it');
        } catch (err) {
          seen.error = (err as Error).name;
          seen.aborted = ctx.signal.aborted;
        }
        // An agent that carries on regardless cannot finish the task with output missing.
        try {
          await ctx.complete('done anyway');
        } catch (err) {
          seen.laterWrite = (err as Error).name;
          seen.abortedAfter = ctx.signal.aborted;
        }
      },
    };
    const r = await runTurn(backend, agent, downFor(30_000));
    const stored = await r.stored();
    expect(stored.task.status.state).toBe('TASK_STATE_FAILED');
    const text = stored.task.status.message?.parts.map((p) => ('text' in p ? p.text : '')).join('');
    expect(text).toMatch(/could not be saved/);
    expect(runs).toBe(1);
    // WORKING and COMPLETED went in one commit; it was given up, and the call that waits for it says so.
    expect(seen).toEqual({ laterWrite: 'StoreWriteError', abortedAfter: true });
    // The agent's write used its 10 s budget; the FAILED write went on until the store came back at 30 s.
    const agentSleeps = [50, 100, 200, 400, 800, 1600, 2000, 2000, 2000, 850];
    expect(r.sleeps.slice(0, agentSleeps.length)).toEqual(agentSleeps);
    expect(sum(r.sleeps)).toBeGreaterThanOrEqual(30_000);
    expect(sum(r.sleeps)).toBeLessThan(30_000 + 2000 + 1);
    expect(Date.parse(stored.task.status.timestamp!)).toBeGreaterThanOrEqual(r.start + 30_000);
  });

  it('past its write-behind window a write settles only once stored: the call that made it throws', async () => {
    let go!: (clock: ManualClock) => void;
    const started = new Promise<ManualClock>((r) => (go = r));
    const seen: { error?: string; aborted?: boolean } = {};
    const agent: AgentExecutor = {
      async execute(ctx) {
        // A third of the default 30 s lease has gone by: the write is stored before the call returns.
        (await started).advance(10_000);
        try {
          await ctx.working('on it');
        } catch (err) {
          seen.error = (err as Error).name;
          seen.aborted = ctx.signal.aborted;
        }
      },
    };
    const r = await runTurn(backend, agent, downFor(30_000), (run) => {
      go(run.clock);
      return Promise.resolve();
    });
    expect(seen).toEqual({ error: 'StoreWriteError', aborted: true });
    expect((await r.stored()).task.status.state).toBe('TASK_STATE_FAILED');
  });

  it('a store that never recovers: an error line says the task is left WORKING, and why', async () => {
    const agent = new CountingAgent(true);
    // The first write (WORKING, flushed on its own) lands; every later one fails.
    const r = await runTurn(backend, agent, (n) => (n === 1 ? 'pass' : 'throw'));
    expect((await r.stored()).task.status.state).toBe('TASK_STATE_WORKING');
    const left = r.logger.entries.filter((e) => e.level === 'error' && e.fields?.taskId === r.taskId);
    expect(left).toHaveLength(1);
    expect(left[0]!.message).toMatch(/left WORKING/);
    expect(left[0]!.fields?.error).toMatch(/Connection terminated/);
    // Both budgets were spent, no more: 10 s for the agent's write, 60 s for the FAILED write.
    expect(sum(r.sleeps)).toBe(SCHEDULE.writeBudgetMs + SCHEDULE.failBudgetMs);
    expect(agent.runs).toBe(1);
  });

  it('a fence refusal is never retried: the stale worker stops at once', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const outcome: string[] = [];
    let before = Number.NaN;
    const agent: AgentExecutor = {
      async execute(ctx) {
        await ctx.working('on it');
        await gate;
        try {
          // Accepted early in the turn, stored at the end of the burst (ADR 0048): refused there.
          await ctx.artifact({ parts: [{ text: 'late' }] });
          // The refusal lands when the burst is stored, a moment later; a loaded machine can take far more than a
          // few milliseconds for that commit, so wait for the abort itself (bounded) rather than a fixed pause.
          await abortedWithin(ctx.signal, 5000);
          outcome.push(ctx.signal.aborted ? 'aborted' : 'still running');
          await ctx.artifact({ parts: [{ text: 'later' }] });
        } catch (err) {
          outcome.push((err as Error).name);
        }
      },
    };
    const r = await runTurn(
      backend,
      agent,
      () => 'pass',
      async (run) => {
        // Another writer (a cancel on another replica) raises the fence while the agent works.
        for (;;) {
          const cur = await run.real.getTask(ANON, run.taskId);
          if (cur && cur.seq >= 1) {
            const status = { state: 'TASK_STATE_CANCELED' as const, timestamp: new Date().toISOString() };
            const res = await run.real.commit(ANON, run.taskId, {
              expectFence: cur.fence,
              nextFence: cur.fence + 1,
              task: { ...cur.task, status },
              events: [],
            });
            expect(res.ok).toBe(true);
            break;
          }
          await new Promise((res) => setTimeout(res, 2));
        }
        before = run.control.commitCalls;
        release();
      },
    );
    // Counted once the turn has drained: one refused attempt for the late artifact, no retry, no final write.
    expect(r.control.commitCalls - before).toBe(1);
    expect(outcome).toEqual(['aborted', 'StaleWriterError']);
    expect(r.sleeps).toEqual([]);
    expect((await r.stored()).task.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('a write that landed but was reported failed (lost acknowledgement) is not applied twice', async () => {
    const agent: AgentExecutor = {
      async execute(ctx) {
        await ctx.artifact({ artifactId: 'a', parts: [{ text: '1' }] });
        await ctx.artifact({ artifactId: 'a', parts: [{ text: '2' }] }, { append: true, lastChunk: true });
      },
    };
    let chunk = 0;
    const r = await runTurn(backend, agent, (_n, w) =>
      w.events.some((e) => 'artifactUpdate' in e && e.artifactUpdate.append === true) && ++chunk === 1
        ? 'apply-then-throw'
        : 'pass',
    );
    const stored = await r.stored();
    expect(stored.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(stored.task.artifacts?.[0]?.parts).toEqual([{ text: '1' }, { text: '2' }]);
    expect((await r.real.readEvents(ANON, r.taskId, 0)).length).toBe(3);
    expect(r.sleeps).toEqual([50]);
  });
});
