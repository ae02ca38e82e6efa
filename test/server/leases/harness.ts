/**
 * Shared pieces of the lease and recovery tests (docs/semantics.md §4, ADR 0037): replicas as servers in this
 * process sharing one real store (memory, SQLite, PostgreSQL), an agent whose turns wait on a gate the test
 * opens, a logger that keeps its lines, and small readers. A replica "dies" by never being heard from again:
 * its lease timer has not fired (the lease is 30 s of wall time) while the test moves the store's ManualClock
 * past the lease, which is exactly what a killed process looks like to the others.
 */
import { randomUUID } from 'node:crypto';
import { afterEach } from 'vitest';
import type { Message, SendMessageResponse, Task } from '../../../src/protocol/model.js';
import type { AgentContext, AgentExecutor } from '../../../src/server/agent-executor.js';
import { localCallContext } from '../../../src/server/call-context.js';
import { createA2AServer, type A2AServer } from '../../../src/server/create-server.js';
import type { LogFields, ServerLogger } from '../../../src/server/observability/logger.js';
import type { A2AServerOptions } from '../../../src/server/options.js';
import type { StoredTask } from '../../../src/store/records.js';
import type { TaskStore } from '../../../src/store/task-store.js';
import { openStoreUnderTest, type StoreKind, type StoreUnderTest } from '../retention/stores.js';

export { STORE_KINDS, type StoreKind } from '../retention/stores.js';

/** The anonymous scope every in-process call here uses. */
export const ANON = { tenant: '', owner: '' } as const;

/** Thirty seconds: the default lease. */
export const LEASE_MS = 30_000;

/** A promise the test resolves when it wants. */
export interface Gate {
  readonly promise: Promise<void>;
  open(): void;
}

export function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** One turn an agent ran, as it saw it. */
export interface SeenTurn {
  readonly taskId: string;
  readonly messageId: string;
  readonly text: string;
  readonly isResumed: boolean;
  readonly isContinuation: boolean;
  readonly ctx: AgentContext;
}

/**
 * An agent whose turns report WORKING, then wait on the gate of their run (by order of start) before they
 * finish with `finish` (by default: an artifact echoing the text, then return so the runner completes it).
 */
export class GatedAgent implements AgentExecutor {
  readonly turns: SeenTurn[] = [];
  readonly gates: Gate[] = [];
  readonly #started: ((t: SeenTurn) => void)[] = [];
  /** What became of each turn: 'done', or the error it threw. */
  readonly endings: unknown[] = [];

  constructor(
    readonly resumable: boolean,
    private readonly finish: (ctx: AgentContext) => Promise<void> = async (ctx) => {
      await ctx.artifact({ artifactId: 'out', parts: [{ text: `done: ${ctx.userText}` }] });
    },
  ) {}

  async execute(ctx: AgentContext): Promise<void> {
    const turn: SeenTurn = {
      taskId: ctx.taskId,
      messageId: ctx.message.messageId,
      text: ctx.userText,
      isResumed: ctx.isResumed,
      isContinuation: ctx.isContinuation,
      ctx,
    };
    const g = (this.gates[this.turns.length] ??= gate());
    this.turns.push(turn);
    for (const w of this.#started.splice(0)) w(turn);
    try {
      await ctx.working(`working on ${ctx.userText}`);
      await g.promise;
      await this.finish(ctx);
      this.endings.push('done');
    } catch (err) {
      this.endings.push(err);
      throw err;
    }
  }

  /** The gate of run `n` (0-based), created ahead if the run has not started yet. */
  gate(n: number): Gate {
    return (this.gates[n] ??= gate());
  }

  /** Resolves with the next turn to start (or the `n`th, if it already did). */
  nextTurn(n = this.turns.length): Promise<SeenTurn> {
    const seen = this.turns[n];
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => {
      const wait = (t: SeenTurn) => (this.turns[n] === t ? resolve(t) : this.#started.push(wait));
      this.#started.push(wait);
    });
  }
}

/** A logger that keeps every line. */
export interface KeptLine {
  readonly level: string;
  readonly message: string;
  readonly fields: LogFields | undefined;
}

export function keepingLogger(): ServerLogger & { lines: KeptLine[] } {
  const lines: KeptLine[] = [];
  const add = (level: string) => (message: string, fields?: LogFields) =>
    void lines.push({ level, message, fields });
  return {
    lines,
    enabled: () => true,
    debug: add('debug'),
    info: add('info'),
    warn: add('warn'),
    error: add('error'),
  };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A fresh store of `kind`, closed after the test. */
export async function freshStore(kind: StoreKind): Promise<StoreUnderTest> {
  const s = await openStoreUnderTest(kind);
  cleanups.push(() => s.cleanup());
  return s;
}

/** Another process's view of the same database: a second store where the backend has one, else the same store. */
export async function replicaStore(s: StoreUnderTest): Promise<TaskStore> {
  return (await s.replica()) ?? s.store;
}

/**
 * A server on `store` (no schedules unless asked: the tests drive recovery themselves), stopped after the test
 * without closing the store (the store belongs to the test, and another replica may still use it).
 */
export function replica(
  s: StoreUnderTest,
  store: TaskStore,
  agent: AgentExecutor,
  extra: Partial<A2AServerOptions> = {},
): A2AServer & { logger: ReturnType<typeof keepingLogger> } {
  const logger = keepingLogger();
  const server = createA2AServer({
    agent,
    card: { name: 'lease-test', description: 'lease tests', capabilities: { streaming: true } },
    store: notClosing(store),
    clock: s.clock,
    retention: false,
    recovery: false,
    logger,
    ...extra,
  });
  cleanups.push(async () => {
    await server.recovery?.stop();
    // No grace: the test is over, and a replica it "killed" holds a turn that never ends, which a drain would wait
    // for until the cap below (2 s per such replica, most of these files' time otherwise).
    await Promise.race([server.close({ graceMs: 0 }), new Promise((r) => setTimeout(r, 2000))]);
  });
  return Object.assign(server, { logger });
}

/** The store, except that `close` does nothing (the test closes the store itself, after every replica). */
function notClosing(store: TaskStore): TaskStore {
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'close') return () => Promise.resolve();
      const value: unknown = Reflect.get(target, prop);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** A user message. */
export function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra };
}

/** The task of a send answer. */
export function taskOf(res: SendMessageResponse): Task {
  if (!('task' in res)) throw new Error(`expected a task, got ${JSON.stringify(res)}`);
  return res.task;
}

/** Sends with returnImmediately and resolves once the agent's turn has started. */
export async function startTurn(
  server: A2AServer,
  agent: GatedAgent,
  message: Message,
): Promise<{ task: Task; turn: SeenTurn }> {
  const n = agent.turns.length;
  const started = agent.nextTurn(n);
  const res = await server.handler.sendMessage(
    { message, configuration: { returnImmediately: true } },
    localCallContext(),
  );
  return { task: taskOf(res), turn: await started };
}

/** The stored record of a task (it must exist). */
export async function stored(store: TaskStore, taskId: string): Promise<StoredTask> {
  const r = await store.getTask(ANON, taskId);
  if (!r) throw new Error(`task ${taskId} is gone`);
  return r;
}

/** Polls `check` until it holds (real time; the work it waits for runs on real timers). */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The text parts of a message. */
export function textOf(m: Message | undefined): string {
  return (m?.parts ?? []).map((p) => ('text' in p ? p.text : '')).join('');
}
