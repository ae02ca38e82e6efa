/**
 * Observability of the duplicate-safety machinery: every admission outcome (claimed, replayed, conflict, expired,
 * refused, released) is counted on `a2a_once.admission` with outcome / tenant / reason and is available to the
 * host; logs carry a key hash, never the key (docs/semantics.md §1 "Keys in logs"); and no unexpected error passes
 * without a log line, by default (ADR 0029): every INTERNAL_ERROR answer and every stream cut by one is logged
 * at `error` with its stack and the task id, and a server given no logger writes warnings and errors to stderr.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { IDEMPOTENCY_METADATA_KEY, keyHash } from '../../../src/idempotency/index.js';
import { jsonLineLogger, silentLogger } from '../../../src/server/observability/logger.js';
import { ADMISSION_COUNTER } from '../../../src/server/observability/metrics.js';
import { createA2AServer } from '../../../src/server/create-server.js';
import { resolveServerOptions } from '../../../src/server/options.js';
import type { Runner } from '../../../src/server/runner/runner.js';
import type { AgentExecutor } from '../../../src/server/agent-executor.js';
import { faultyStore, type FaultControl } from '../after-admission/faulty-store.js';
import {
  BINDINGS,
  HOUR,
  NoKeysStore,
  TEST_CARD,
  errorOf,
  freshKey,
  getTask,
  keyedMessage,
  makeServer,
  openStream,
  send,
  taskOf,
  until,
  userMessage,
  type Binding,
  type TestServer,
} from './helpers.js';

const servers: TestServer[] = [];
function server(o: Parameters<typeof makeServer>[0] = {}): TestServer {
  const s = makeServer(o);
  servers.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function failNextStart(t: TestServer): void {
  const runner: Runner = t.server.handler.runner;
  const start = runner.start.bind(runner);
  let fail = true;
  runner.start = (turn) => {
    if (fail) {
      fail = false;
      throw new Error('no worker available');
    }
    return start(turn);
  };
}

/** Drives one send per admission outcome on `tenant`; returns every key it used. */
async function everyOutcome(t: TestServer, binding: Binding, tenant: string): Promise<string[]> {
  const opts = { tenant };
  const keys: string[] = [];
  const k = () => {
    const key = freshKey();
    keys.push(key);
    return key;
  };
  // claimed, then replayed
  const m = keyedMessage('hello', k());
  taskOf(await send(t.ep, binding, m, opts));
  taskOf(await send(t.ep, binding, m, opts));
  // conflict
  errorOf(await send(t.ep, binding, keyedMessage('hello', keys[0]), opts));
  // expired
  const old = keyedMessage('old', k());
  taskOf(await send(t.ep, binding, old, opts));
  t.clock.advance(2 * HOUR);
  await t.memory.purgeExpired({ terminalMaxAgeMs: 0 });
  errorOf(await send(t.ep, binding, old, opts));
  // refused: at capacity (cap 3 live keys; the two tombstones above never count)
  for (const text of ['third', 'fourth', 'fifth'])
    taskOf(await send(t.ep, binding, keyedMessage(text, k()), opts));
  errorOf(await send(t.ep, binding, keyedMessage('over the cap', k()), opts));
  // refused: malformed key (never logged, it is not a key)
  errorOf(
    await send(
      t.ep,
      binding,
      { ...userMessage('bad'), metadata: { [IDEMPOTENCY_METADATA_KEY]: 'short' } },
      opts,
    ),
  );
  return keys;
}

describe.each(BINDINGS)('admission metrics over %s', (binding: Binding) => {
  it('counts claimed, replayed, conflict, expired and refused with tenant and reason', async () => {
    const t = server({ keyTtlMs: HOUR, maxKeysPerScope: 3 });
    await everyOutcome(t, binding, 'tenant-m');
    const total = (match: Record<string, string>) =>
      t.metrics.total(ADMISSION_COUNTER, { tenant: 'tenant-m', ...match });
    expect(total({ outcome: 'claimed' })).toBe(5);
    expect(total({ outcome: 'replayed' })).toBe(1);
    expect(total({ outcome: 'conflict', reason: 'IDEMPOTENCY_KEY_REUSED' })).toBe(1);
    expect(total({ outcome: 'expired', reason: 'IDEMPOTENCY_KEY_EXPIRED' })).toBe(1);
    expect(total({ outcome: 'refused', reason: 'IDEMPOTENCY_CAPACITY' })).toBe(1);
    expect(total({ outcome: 'refused', reason: 'IDEMPOTENCY_KEY_INVALID' })).toBe(1);
    expect(total({})).toBe(10);
    // Nothing was counted on another tenant.
    expect(t.metrics.total(ADMISSION_COUNTER, { tenant: '' })).toBe(0);
  });

  it('counts refusals of the lifecycle guard and of a store without keys, with their reasons', async () => {
    const t = server();
    errorOf(await send(t.ep, binding, userMessage('hi', { taskId: 'missing' })));
    const done = taskOf(await send(t.ep, binding, userMessage('done')));
    errorOf(await send(t.ep, binding, userMessage('more', { taskId: done.id })));
    expect(t.metrics.total(ADMISSION_COUNTER, { outcome: 'refused', reason: 'TASK_NOT_FOUND' })).toBe(1);
    expect(t.metrics.total(ADMISSION_COUNTER, { outcome: 'refused', reason: 'UNSUPPORTED_OPERATION' })).toBe(
      1,
    );
    const noKeys = server({ wrap: (mem) => new NoKeysStore(mem) });
    errorOf(await send(noKeys.ep, binding, keyedMessage('hello')));
    expect(
      noKeys.metrics.total(ADMISSION_COUNTER, { outcome: 'refused', reason: 'UNSUPPORTED_OPERATION' }),
    ).toBe(1);
  });

  it('counts a released claim', async () => {
    const t = server();
    failNextStart(t);
    errorOf(await send(t.ep, binding, keyedMessage('hello'), { tenant: 'tenant-r' }));
    await until(
      () => t.metrics.total(ADMISSION_COUNTER, { outcome: 'released', tenant: 'tenant-r' }) === 1,
      2000,
      'released counted',
    );
  });

  it('exposes the counters to the host as a snapshot, with no key in it', async () => {
    const t = server({ keyTtlMs: HOUR, maxKeysPerScope: 3 });
    const keys = await everyOutcome(t, binding, 'tenant-s');
    const snap = t.metrics.snapshot();
    expect(Object.keys(snap)).toContain(`${ADMISSION_COUNTER}|outcome=claimed,tenant=tenant-s`);
    expect(Object.keys(snap)).toContain(
      `${ADMISSION_COUNTER}|outcome=conflict,reason=IDEMPOTENCY_KEY_REUSED,tenant=tenant-s`,
    );
    const text = JSON.stringify(snap);
    for (const key of keys) expect(text).not.toContain(key);
  });
});

describe.each(BINDINGS)('logs carry a key hash, never the key, over %s', (binding: Binding) => {
  it('every keyed admission and refusal is logged with keyHash and without the key', async () => {
    const t = server({ keyTtlMs: HOUR, maxKeysPerScope: 3 });
    const keys = await everyOutcome(t, binding, 'tenant-l');
    // A keyed continuation too (on the default tenant, below its cap).
    const askKey = freshKey();
    keys.push(askKey);
    const ask = keyedMessage('input please', askKey);
    const first = taskOf(await send(t.ep, binding, ask));
    expect(first.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const contKey = freshKey();
    keys.push(contKey);
    taskOf(await send(t.ep, binding, keyedMessage('answer', contKey, { taskId: first.id })));

    const text = t.logger.text();
    expect(t.logger.entries.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(text, 'a key appears in clear in the log').not.toContain(key);
    }
    const logged = new Set(t.logger.entries.map((e) => e.fields?.keyHash).filter((h) => h !== undefined));
    // The first key (claimed, replayed, conflict) and the expired one are logged by hash.
    expect(logged).toContain(keyHash(keys[0]!));
    expect(logged).toContain(keyHash(keys[1]!));
    expect(logged).toContain(keyHash(contKey));
    const refusal = t.logger.entries.find(
      (e) => e.fields?.keyHash === keyHash(keys[1]!) && e.fields.outcome === 'expired',
    );
    expect(refusal?.fields).toMatchObject({ reason: 'IDEMPOTENCY_KEY_EXPIRED' });
  });
});

/** A test server over a memory store that fails on demand. */
function faultyServer(o: Parameters<typeof makeServer>[0] = {}): { t: TestServer; control: FaultControl } {
  let control: FaultControl | undefined;
  const t = server({
    ...o,
    wrap: (mem) => {
      const f = faultyStore(mem);
      control = f.control;
      return f.store;
    },
  });
  return { t, control: control! };
}

/** The `error` lines of a test server's log. */
function errorLines(t: TestServer) {
  return t.logger.entries.filter((e) => e.level === 'error');
}

describe.each(BINDINGS)('unexpected errors are logged, over %s', (binding: Binding) => {
  it('an INTERNAL_ERROR answer is logged at error, with the stack of its cause and the task id', async () => {
    const { t, control } = faultyServer();
    const done = taskOf(await send(t.ep, binding, userMessage('hello')));
    control.failReads(['getTask']);
    const e = errorOf(await getTask(t.ep, binding, done.id));
    expect(binding === 'jsonrpc' ? e.code : e.httpStatus).toBe(binding === 'jsonrpc' ? -32603 : 500);
    const lines = errorLines(t);
    expect(lines, t.logger.text()).toHaveLength(1);
    expect(lines[0]!.fields).toMatchObject({ taskId: done.id, method: 'GetTask' });
    expect(lines[0]!.fields?.error).toContain('Connection terminated');
    expect(lines[0]!.fields?.stack).toMatch(/Connection terminated[^\n]*\n\s+at /);
  });

  it('an internal error before admission is logged without the key in clear, even when the error names it', async () => {
    // Tried once: a claim-and-create the store fails is otherwise retried for storeWriteBudgetMs (ADR 0052).
    const { t, control } = faultyServer({ storeWriteBudgetMs: 0 });
    const key = freshKey();
    // A driver that echoes the values it was given in its message (as constraint errors often do).
    control.createTaskError = (input) => new Error(`insert failed for key ${input.claim?.key ?? '?'}`);
    const e = errorOf(await send(t.ep, binding, keyedMessage('hello', key)));
    expect(e.reason).toBe('INTERNAL_ERROR');
    const lines = errorLines(t);
    expect(lines, t.logger.text()).toHaveLength(1);
    expect(lines[0]!.fields?.method).toBe('SendMessage');
    expect(t.logger.text()).not.toContain(key);
    expect(lines[0]!.fields?.error).toContain(keyHash(key));
  });

  it('a send whose worker could not start is answered -32603 / 500 and logged with the released task id', async () => {
    const t = server();
    failNextStart(t);
    const e = errorOf(await send(t.ep, binding, keyedMessage('hello')));
    expect(e.reason).toBe('INTERNAL_ERROR');
    const lines = errorLines(t);
    expect(lines, t.logger.text()).toHaveLength(1);
    expect(lines[0]!.fields?.taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(lines[0]!.fields?.stack).toContain('no worker available');
  });

  it('an internal error mid-stream cuts the stream without an error frame and is logged with the task id', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const agent: AgentExecutor = {
      async execute(ctx) {
        await ctx.working('first');
        // Not JSON: the frame of this event cannot be written.
        await ctx.status('TASK_STATE_WORKING', 'second', { n: 10n as unknown as number });
        await gate;
        await ctx.complete('done');
      },
    };
    const t = server({ agent, card: TEST_CARD });
    const open = await openStream(t.ep, binding, userMessage('stream'));
    if (open.kind !== 'stream') throw new Error('stream refused');
    const frames = await open.stream.rest(5000);
    expect(frames.filter((f) => 'error' in f)).toEqual([]);
    expect(frames).toHaveLength(2); // the snapshot and the first status; then the cut
    const taskId = 'event' in frames[0]! && 'task' in frames[0].event ? frames[0].event.task.id : '';
    const lines = errorLines(t);
    expect(lines, t.logger.text()).toHaveLength(1);
    expect(lines[0]!.fields?.taskId).toBe(taskId);
    expect(lines[0]!.fields?.error).toMatch(/BigInt/);
    release();
    await until(
      async () => {
        const a = await getTask(t.ep, binding, taskId);
        return a.kind === 'task' && a.task.status.state === 'TASK_STATE_COMPLETED';
      },
      5000,
      'task completed',
    );
  });
});

describe.each(BINDINGS)('a client going away is not an error, over %s', (binding: Binding) => {
  it('a stream cancelled while it waits for the next event logs nothing when the event comes', async () => {
    const t = server();
    const open = await openStream(t.ep, binding, userMessage('hold on'));
    if (open.kind !== 'stream') throw new Error('stream refused');
    await open.stream.next(); // the snapshot
    await open.stream.next(); // WORKING; the server now waits for the next event
    await open.stream.cancel();
    t.agent.release(); // the next event arrives after the client left
    await until(() => t.agent.executions.length === 1, 2000, 'agent ran');
    const taskId = t.agent.executions[0]!.taskId;
    await until(
      async () =>
        (await t.store.getTask({ tenant: '', owner: '' }, taskId))?.task.status.state ===
        'TASK_STATE_COMPLETED',
      5000,
      'task completed',
    );
    await new Promise((r) => setTimeout(r, 50));
    expect(errorLines(t), t.logger.text()).toEqual([]);
  });
});

describe('the default logger', () => {
  function captureStderr(): { lines: () => Record<string, unknown>[]; restore: () => void } {
    const chunks: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => {
      chunks.push(String(chunk));
      return true;
    });
    return {
      lines: () =>
        chunks
          .join('')
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => JSON.parse(l) as Record<string, unknown>),
      restore: () => spy.mockRestore(),
    };
  }

  it('a server given no logger writes warn and error as JSON lines on stderr, and nothing below', () => {
    const logger = resolveServerOptions({
      agent: { execute: () => Promise.resolve() },
      card: TEST_CARD,
    }).logger;
    const err = captureStderr();
    try {
      logger.debug('debug line');
      logger.info('info line');
      logger.warn('warn line', { taskId: 't-1' });
      logger.error('error line', { taskId: 't-2', stack: 'Error: x\n    at y' });
    } finally {
      err.restore();
    }
    const lines = err.lines();
    expect(lines.map((l) => [l.level, l.message, l.taskId])).toEqual([
      ['warn', 'warn line', 't-1'],
      ['error', 'error line', 't-2'],
    ]);
    expect(typeof lines[0]!.time).toBe('string');
    expect(lines[1]!.stack).toBe('Error: x\n    at y');
  });

  it('an agent failure in a server built without a logger reaches stderr with its task id', async () => {
    const err = captureStderr();
    const s = createA2AServer({
      agent: { execute: () => Promise.reject(new Error('agent crashed on purpose')) },
      card: TEST_CARD,
    });
    try {
      const task = (await s.handler.sendMessage(
        { message: userMessage('hello') },
        { tenant: '', requestedExtensions: [], activatedExtensions: new Set() },
      )) as { task: { id: string; status: { state: string } } };
      expect(task.task.status.state).toBe('TASK_STATE_FAILED');
      const line = err.lines().find((l) => l.message === 'agent turn failed');
      expect(line).toMatchObject({ level: 'error', taskId: task.task.id, error: 'agent crashed on purpose' });
      expect(line?.errorId).toMatch(/^err_[0-9a-f]{16}$/);
    } finally {
      err.restore();
      await s.close();
    }
  });

  it('silentLogger stays silent, and jsonLineLogger(true) also writes debug and info', () => {
    const err = captureStderr();
    try {
      silentLogger.error('nothing');
      jsonLineLogger(true).debug('verbose line');
    } finally {
      err.restore();
    }
    expect(err.lines().map((l) => l.message)).toEqual(['verbose line']);
  });
});
