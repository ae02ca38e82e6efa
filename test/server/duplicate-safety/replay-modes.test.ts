/**
 * docs/semantics.md §2 "replay": a retry honours its own mode. A blocking retry waits for the task like
 * the first call would; `returnImmediately` returns the current snapshot; a streaming retry gets the snapshot,
 * then the live events, and ends when the original stream would. A retry racing the first attempt's task
 * creation still gets that task. Over JSON-RPC and REST.
 */
import { describe, expect, it } from 'vitest';
import { localCallContext } from '../../../src/server/call-context.js';
import type { Scope } from '../../../src/store/scope.js';
import type { CreateTaskInput, CreateTaskResult } from '../../../src/store/task-store.js';
import {
  ANON,
  BINDINGS,
  DelegatingStore,
  eventLabels,
  keyedMessage,
  openStream,
  send,
  stillPending,
  streamAll,
  taskIdOf,
  taskOf,
  until,
  userMessage,
  withTimeout,
  type Binding,
  type SseStream,
  type StreamFrame,
  type TestServer,
  serversClosedAfterEach,
} from './helpers.js';

function events(frames: readonly StreamFrame[]) {
  return frames.map((f) => {
    if ('error' in f) throw new Error(`stream error: ${JSON.stringify(f.error)}`);
    return f.event;
  });
}

async function streamOf(t: TestServer, binding: Binding, message: unknown): Promise<SseStream> {
  const open = await openStream(t.ep, binding, message);
  if (open.kind !== 'stream') throw new Error(`stream refused: ${JSON.stringify(open.error)}`);
  return open.stream;
}

describe.each(BINDINGS)('replay modes over %s', (binding: Binding) => {
  const server = serversClosedAfterEach();

  it('a blocking retry waits for the task like the first call would, then returns it', async () => {
    const t = server();
    const m = keyedMessage('hold the line');
    const first = taskOf(await send(t.ep, binding, m, { returnImmediately: true }));
    expect(first.status.state).toBe('TASK_STATE_WORKING');
    const retry = send(t.ep, binding, m);
    expect(await stillPending(retry, 150)).toBe(true);
    t.agent.release();
    const got = taskOf(await withTimeout(retry, 5000, 'blocking retry'));
    expect(got.id).toBe(first.id);
    expect(got.status.state).toBe('TASK_STATE_COMPLETED');
    expect(got.artifacts?.[0]?.parts).toEqual([{ text: 'echo: hold the line' }]);
    expect(t.agent.executions).toHaveLength(1);
  });

  it('a blocking retry is bounded by the server’s blocking timeout and then answers the current snapshot', async () => {
    const t = server({ blockingTimeoutMs: 300 });
    const m = keyedMessage('hold the line');
    const first = taskOf(await send(t.ep, binding, m, { returnImmediately: true }));
    const started = Date.now();
    const got = taskOf(await withTimeout(send(t.ep, binding, m), 5000, 'bounded retry'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(got.id).toBe(first.id);
    expect(got.status.state).toBe('TASK_STATE_WORKING');
    expect(t.agent.executions).toHaveLength(1);
  });

  it('a returnImmediately retry of a running task returns its current snapshot without waiting', async () => {
    const t = server();
    const m = keyedMessage('hold the line');
    const original = send(t.ep, binding, m); // the first attempt blocks until the agent finishes
    await new Promise((r) => setTimeout(r, 50));
    const got = taskOf(
      await withTimeout(send(t.ep, binding, m, { returnImmediately: true }), 1000, 'snapshot'),
    );
    expect(got.status.state).toBe('TASK_STATE_WORKING');
    expect(got.artifacts ?? []).toHaveLength(0);
    t.agent.release();
    const done = taskOf(await withTimeout(original, 5000, 'original'));
    expect(done.id).toBe(got.id);
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(t.agent.executions).toHaveLength(1);
  });

  it('a returnImmediately retry of a task that has not emitted anything yet returns the SUBMITTED snapshot at once', async () => {
    const t = server({ blockingTimeoutMs: 3000 });
    const m = keyedMessage('stall for a while');
    const original = send(t.ep, binding, m);
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    const got = taskOf(
      await withTimeout(send(t.ep, binding, m, { returnImmediately: true }), 4000, 'snapshot'),
    );
    const waited = Date.now() - started;
    t.agent.release();
    await withTimeout(original, 5000, 'original');
    expect(got.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(waited).toBeLessThan(1000);
    expect(t.agent.executions).toHaveLength(1);
  });

  it('a streaming retry gets the task snapshot first, then the live events, and ends like the original', async () => {
    const t = server();
    const m = keyedMessage('hold the line');
    const first = taskOf(await send(t.ep, binding, m, { returnImmediately: true }));
    const retry = await streamOf(t, binding, m);
    const head = await retry.next();
    expect(head && 'event' in head ? eventLabels([head.event]) : head).toEqual(['task:TASK_STATE_WORKING']);
    expect(head && 'event' in head ? taskIdOf(head.event) : undefined).toBe(first.id);
    t.agent.release();
    const tail = events(await retry.rest());
    expect(eventLabels(tail)).toEqual(['artifact', 'status:TASK_STATE_COMPLETED']);
    expect(tail.every((ev) => taskIdOf(ev) === first.id)).toBe(true);
    expect(t.agent.executions).toHaveLength(1);
  });

  it('a streaming original and a streaming retry: the retry’s live events are the original’s tail, both end at COMPLETED', async () => {
    const t = server();
    const m = keyedMessage('hold the line');
    const original = await streamOf(t, binding, m);
    const o1 = await original.next();
    const o2 = await original.next();
    expect(eventLabels(events([o1!, o2!]))).toEqual([
      'task:TASK_STATE_SUBMITTED',
      'status:TASK_STATE_WORKING',
    ]);
    const retry = await streamOf(t, binding, m);
    const r1 = await retry.next();
    expect(eventLabels(events([r1!]))).toEqual(['task:TASK_STATE_WORKING']);
    t.agent.release();
    const [oRest, rRest] = await Promise.all([original.rest(), retry.rest()]);
    expect(eventLabels(events(oRest))).toEqual(['artifact', 'status:TASK_STATE_COMPLETED']);
    expect(events(rRest)).toEqual(events(oRest));
    expect(t.agent.executions).toHaveLength(1);
  });

  it('a streaming retry of a finished task gets the snapshot and ends', async () => {
    const t = server();
    const m = keyedMessage('quick');
    const first = taskOf(await send(t.ep, binding, m));
    const r = await withTimeout(streamAll(t.ep, binding, m), 3000, 'replayed stream');
    if (r.kind !== 'events') throw new Error(JSON.stringify(r.error));
    expect(eventLabels(r.events)).toEqual(['task:TASK_STATE_COMPLETED']);
    expect(taskIdOf(r.events[0]!)).toBe(first.id);
    expect(t.agent.executions).toHaveLength(1);
  });

  it('a streaming retry of an INPUT_REQUIRED task gets the snapshot and ends (as the original stream did)', async () => {
    const t = server();
    const m = keyedMessage('input please');
    const orig = await withTimeout(streamAll(t.ep, binding, m), 3000, 'original stream');
    if (orig.kind !== 'events') throw new Error(JSON.stringify(orig.error));
    expect(eventLabels(orig.events).at(-1)).toBe('status:TASK_STATE_INPUT_REQUIRED');
    const r = await withTimeout(streamAll(t.ep, binding, m), 3000, 'replayed stream');
    if (r.kind !== 'events') throw new Error(JSON.stringify(r.error));
    expect(eventLabels(r.events)).toEqual(['task:TASK_STATE_INPUT_REQUIRED']);
    expect(t.agent.executions).toHaveLength(1);
  });

  it('a direct-reply outcome is replayed as the same message, blocking and streaming', async () => {
    const t = server();
    const m = keyedMessage('reply directly');
    const a = await send(t.ep, binding, m);
    if (a.kind !== 'message') throw new Error(`expected a message, got ${a.kind}`);
    const b = await send(t.ep, binding, m);
    if (b.kind !== 'message') throw new Error(`expected a message, got ${b.kind}`);
    expect(b.message).toEqual(a.message);
    const s = await withTimeout(streamAll(t.ep, binding, m), 3000, 'replayed stream');
    if (s.kind !== 'events') throw new Error(JSON.stringify(s.error));
    expect(s.events).toEqual([{ message: a.message }]);
    expect(t.agent.executions).toHaveLength(1);
  });

  it('an agent failure is replayed as the failed task, never run again', async () => {
    const t = server();
    const m = keyedMessage('throw something');
    const first = taskOf(await send(t.ep, binding, m));
    expect(first.status.state).toBe('TASK_STATE_FAILED');
    const again = taskOf(await send(t.ep, binding, m));
    expect(again.id).toBe(first.id);
    expect(again.status.state).toBe('TASK_STATE_FAILED');
    const s = await withTimeout(streamAll(t.ep, binding, m), 3000, 'replayed stream');
    if (s.kind !== 'events') throw new Error(JSON.stringify(s.error));
    expect(eventLabels(s.events)).toEqual(['task:TASK_STATE_FAILED']);
    expect(t.agent.executions).toHaveLength(1);
  });

  it('a cancelled task is replayed as CANCELED, never run again', async () => {
    const t = server();
    const m = keyedMessage('hold the line');
    const first = taskOf(await send(t.ep, binding, m, { returnImmediately: true }));
    const cancelled = await t.server.handler.cancelTask({ id: first.id }, localCallContext());
    expect(cancelled.status.state).toBe('TASK_STATE_CANCELED');
    const again = taskOf(await withTimeout(send(t.ep, binding, m), 3000, 'retry after cancel'));
    expect(again.id).toBe(first.id);
    expect(again.status.state).toBe('TASK_STATE_CANCELED');
    expect(t.agent.executions).toHaveLength(1);
  });

  it('a retried continuation honours its mode too: blocking waits, streaming follows live', async () => {
    const t = server();
    const first = taskOf(await send(t.ep, binding, userMessage('input please')));
    const answer = userMessage('hold on, here is my answer', { taskId: first.id });
    const cont = taskOf(await send(t.ep, binding, answer, { returnImmediately: true }));
    expect(cont.status.state).toBe('TASK_STATE_WORKING');
    // The agent's "holding" status is stored at the end of its burst (ADR 0048); the retries come after it.
    await until(async () => {
      const stored = await t.memory.getTask(ANON, first.id);
      const part = stored?.task.status.message?.parts[0];
      return part !== undefined && 'text' in part && part.text === 'holding';
    });
    const blocking = send(t.ep, binding, answer);
    const streaming = await streamOf(t, binding, answer);
    const head = await streaming.next();
    expect(eventLabels(events([head!]))).toEqual(['task:TASK_STATE_WORKING']);
    expect(await stillPending(blocking, 100)).toBe(true);
    t.agent.release();
    expect(taskOf(await withTimeout(blocking, 5000, 'blocking continuation retry')).status.state).toBe(
      'TASK_STATE_COMPLETED',
    );
    expect(eventLabels(events(await streaming.rest()))).toEqual(['artifact', 'status:TASK_STATE_COMPLETED']);
    expect(t.agent.executions.map((e) => e.isContinuation)).toEqual([false, true]);
  });

  it.each(['blocking', 'returnImmediately', 'streaming'] as const)(
    'a %s retry racing the first attempt’s task creation gets the first attempt’s task (never not-found, never a second)',
    async (mode) => {
      class SlowCreateStore extends DelegatingStore {
        override async createTask(scope: Scope, input: CreateTaskInput): Promise<CreateTaskResult> {
          const res = await this.inner.createTask(scope, input);
          // The claim is made; the first attempt has not started its worker yet.
          await new Promise((r) => setTimeout(r, 120));
          return res;
        }
      }
      const t = server({ wrap: (mem) => new SlowCreateStore(mem) });
      const m = keyedMessage('racing creation');
      const first = send(t.ep, binding, m);
      await new Promise((r) => setTimeout(r, 30));
      let retryTaskId: string | undefined;
      if (mode === 'streaming') {
        const s = await withTimeout(streamAll(t.ep, binding, m), 5000, 'streaming retry');
        if (s.kind !== 'events') throw new Error(JSON.stringify(s.error));
        // Snapshot then live events, or (if the task finished meanwhile) the finished snapshot alone.
        expect(['status:TASK_STATE_COMPLETED', 'task:TASK_STATE_COMPLETED']).toContain(
          eventLabels(s.events).at(-1),
        );
        retryTaskId = taskIdOf(s.events[0]!);
      } else {
        const a = await withTimeout(
          send(t.ep, binding, m, mode === 'returnImmediately' ? { returnImmediately: true } : {}),
          5000,
          'retry',
        );
        retryTaskId = taskOf(a).id;
      }
      const original = taskOf(await withTimeout(first, 5000, 'first attempt'));
      expect(retryTaskId).toBe(original.id);
      expect(t.agent.executions).toHaveLength(1);
      expect(t.memory.taskCount).toBe(1);
    },
  );
});
