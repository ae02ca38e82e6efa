/**
 * docs/semantics.md §3, the lifecycle guard: every row over JSON-RPC and REST (unary and streaming), and the pure
 * verdict function `guardExistingTask` checked against the table with fast-check.
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { messageDigest } from '../../../src/idempotency/index.js';
import type { Message, Task } from '../../../src/protocol/model.js';
import { TASK_STATES, type TaskState } from '../../../src/protocol/task-state.js';
import { guardExistingTask } from '../../../src/server/admission/lifecycle-guard.js';
import type { StoredTask } from '../../../src/store/records.js';
import { claimerLosesTheRace } from '../continuation-races/claimer-loses.js';
import {
  ANON,
  BINDINGS,
  REFUSALS,
  errorOf,
  eventLabels,
  expectedShape,
  freshKey,
  keyedMessage,
  makeServer,
  openStream,
  refusalShape,
  seedTask,
  send,
  streamAll,
  taskOf,
  userMessage,
  type Binding,
  type TestServer,
} from './helpers.js';

const BUSY: TaskState[] = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'];
const TERMINAL: TaskState[] = [
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
];
const INTERRUPTED: TaskState[] = ['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED'];

describe.each(BINDINGS)('docs/semantics.md §3 lifecycle guard over %s', (binding: Binding) => {
  let t: TestServer;
  beforeEach(() => {
    t = makeServer({ http: { authenticate: (req) => req.headers.get('x-principal') ?? undefined } });
  });
  afterEach(async () => {
    await t.close();
  });

  it('no such task: TASK_NOT_FOUND (-32001 / 404)', async () => {
    const e = errorOf(await send(t.ep, binding, userMessage('hi', { taskId: 'no-such-task' })));
    expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.taskNotFound));
    expect(t.agent.executions).toHaveLength(0);
  });

  it('a task of another tenant is not visible: TASK_NOT_FOUND', async () => {
    const { task } = await seedTask(t.store, 'TASK_STATE_INPUT_REQUIRED', {
      scope: { tenant: 'other', owner: '' },
    });
    const e = errorOf(await send(t.ep, binding, userMessage('answer', { taskId: task.id })));
    expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.taskNotFound));
    expect(t.agent.executions).toHaveLength(0);
  });

  it('a task of another principal is not visible: TASK_NOT_FOUND', async () => {
    const { task } = await seedTask(t.store, 'TASK_STATE_INPUT_REQUIRED', {
      scope: { tenant: '', owner: 'alice' },
    });
    const asBob = await send(t.ep, binding, userMessage('answer', { taskId: task.id }), {
      headers: { 'x-principal': 'bob' },
    });
    expect(refusalShape(errorOf(asBob))).toEqual(expectedShape(binding, REFUSALS.taskNotFound));
    const asAlice = await send(t.ep, binding, userMessage('answer', { taskId: task.id }), {
      headers: { 'x-principal': 'alice' },
    });
    expect(taskOf(asAlice).status.state).toBe('TASK_STATE_COMPLETED');
    expect(t.agent.executions).toHaveLength(1);
  });

  it.each(INTERRUPTED)('%s: continuation, fence + 1, WORKING, the agent resumes', async (state) => {
    const { task } = await seedTask(t.store, state);
    const answer = userMessage('answer', { taskId: task.id });
    const got = taskOf(await send(t.ep, binding, answer));
    expect(got.id).toBe(task.id);
    expect(got.status.state).toBe('TASK_STATE_COMPLETED');
    expect(t.agent.executions).toEqual([expect.objectContaining({ taskId: task.id, isContinuation: true })]);
    const rec = await t.store.getTask(ANON, task.id);
    expect(rec?.fence).toBe(2);
    expect(rec?.task.history?.map((m) => m.messageId)).toContain(answer.messageId);
    // The first event after the seeded one is the admission's WORKING.
    const events = await t.store.readEvents(ANON, task.id, 1);
    const first = events[0]?.event;
    expect(first && 'statusUpdate' in first ? first.statusUpdate.status.state : undefined).toBe(
      'TASK_STATE_WORKING',
    );
  });

  it.each(INTERRUPTED)('%s: a continuation over a stream gets the live turn', async (state) => {
    const { task } = await seedTask(t.store, state);
    const r = await streamAll(t.ep, binding, userMessage('answer', { taskId: task.id }));
    if (r.kind !== 'events') throw new Error(JSON.stringify(r.error));
    expect(eventLabels(r.events)).toEqual([
      'task:TASK_STATE_WORKING',
      'status:TASK_STATE_WORKING',
      'artifact',
      'status:TASK_STATE_COMPLETED',
    ]);
    expect(t.agent.executions).toHaveLength(1);
  });

  it.each([...BUSY, ...TERMINAL])(
    '%s: refused (-32004 / 400) with the current state in metadata',
    async (state) => {
      const { task } = await seedTask(t.store, state);
      const e = errorOf(await send(t.ep, binding, userMessage('more', { taskId: task.id })));
      expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.unsupported));
      expect(e.metadata).toMatchObject({ state, taskId: task.id });
      expect(t.agent.executions).toHaveLength(0);
      const rec = await t.store.getTask(ANON, task.id);
      expect(rec?.fence).toBe(1);
      expect(rec?.task.status.state).toBe(state);
      expect(rec?.task.history).toHaveLength(1);
    },
  );

  it.each([...BUSY, ...TERMINAL])('%s: refused the same way on a streaming send', async (state) => {
    const { task } = await seedTask(t.store, state);
    const e = errorOf(await openStream(t.ep, binding, userMessage('more', { taskId: task.id })));
    expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.unsupported));
    expect(e.metadata?.state).toBe(state);
  });

  it('a live WORKING task (agent still running) refuses a second writer', async () => {
    const first = taskOf(await send(t.ep, binding, userMessage('hold on'), { returnImmediately: true }));
    expect(first.status.state).toBe('TASK_STATE_WORKING');
    const e = errorOf(await send(t.ep, binding, userMessage('barge in', { taskId: first.id })));
    expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.unsupported));
    expect(e.metadata?.state).toBe('TASK_STATE_WORKING');
    t.agent.release();
    expect(t.agent.executions).toHaveLength(1);
  });

  it.each([...BUSY, ...TERMINAL, ...INTERRUPTED])(
    '%s: M already in history with the same digest is a replay (nothing runs)',
    async (state) => {
      const { task, sent } = await seedTask(t.store, state);
      // The client retries exactly what it sent, now naming the task.
      const got = taskOf(
        await send(t.ep, binding, { ...sent, taskId: task.id }, { returnImmediately: true }),
      );
      expect(got.id).toBe(task.id);
      expect(got.status.state).toBe(state);
      expect(t.agent.executions).toHaveLength(0);
      expect((await t.store.getTask(ANON, task.id))?.fence).toBe(1);
    },
  );

  it.each([...BUSY, ...TERMINAL, ...INTERRUPTED])(
    '%s: M already in history with a different digest is IDEMPOTENCY_KEY_REUSED',
    async (state) => {
      const { task, sent } = await seedTask(t.store, state);
      const changed: Message = { ...sent, taskId: task.id, parts: [{ text: 'something else' }] };
      const e = errorOf(await send(t.ep, binding, changed));
      expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.keyReused));
      expect(t.agent.executions).toHaveLength(0);
    },
  );

  it('contextId given and not the task’s: refused (-32602 / 400)', async () => {
    const { task } = await seedTask(t.store, 'TASK_STATE_INPUT_REQUIRED');
    const e = errorOf(
      await send(t.ep, binding, userMessage('answer', { taskId: task.id, contextId: 'another-context' })),
    );
    expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.invalidParams));
    expect(t.agent.executions).toHaveLength(0);
    expect((await t.store.getTask(ANON, task.id))?.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('contextId given and the task’s own: the continuation is accepted', async () => {
    const { task } = await seedTask(t.store, 'TASK_STATE_INPUT_REQUIRED');
    const got = taskOf(
      await send(t.ep, binding, userMessage('answer', { taskId: task.id, contextId: task.contextId })),
    );
    expect(got.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('a real two-turn task: the continuation runs once, its retry replays, a third message is refused', async () => {
    const first = taskOf(await send(t.ep, binding, userMessage('input please')));
    expect(first.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const answer = userMessage('answer', { taskId: first.id });
    const done = taskOf(await send(t.ep, binding, answer));
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    const again = taskOf(await send(t.ep, binding, answer));
    expect(again.id).toBe(first.id);
    expect(again.status.state).toBe('TASK_STATE_COMPLETED');
    expect(t.agent.executions).toHaveLength(2);
    const e = errorOf(await send(t.ep, binding, userMessage('more', { taskId: first.id })));
    expect(e.metadata?.state).toBe('TASK_STATE_COMPLETED');
  });

  it('a keyed continuation whose key is held by another message: IDEMPOTENCY_KEY_REUSED', async () => {
    const key = freshKey();
    const holder = keyedMessage('input please', key);
    const first = taskOf(await send(t.ep, binding, holder));
    const e = errorOf(await send(t.ep, binding, keyedMessage('answer', key, { taskId: first.id })));
    expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.keyReused));
    expect(e.metadata?.heldByMessageId).toBe(holder.messageId);
    expect(t.agent.executions).toHaveLength(1);
  });

  it('a keyed continuation claims its key: the key then conflicts with any other message', async () => {
    const first = taskOf(await send(t.ep, binding, userMessage('input please')));
    const key = freshKey();
    const answer = keyedMessage('answer', key, { taskId: first.id });
    expect(taskOf(await send(t.ep, binding, answer)).status.state).toBe('TASK_STATE_COMPLETED');
    // The same key on a different message (a new send) must be refused, never run.
    const e = errorOf(await send(t.ep, binding, keyedMessage('something new', key)));
    expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.keyReused));
    expect(e.metadata?.heldByMessageId).toBe(answer.messageId);
    expect(t.agent.executions).toHaveLength(2);
  });

  it('identical keyed continuations racing, the claimer losing the compare-and-set: one run, the key kept', async () => {
    let arm = (): void => undefined;
    const racing = makeServer({
      wrap: (memory) => {
        const w = claimerLosesTheRace(memory);
        arm = w.arm;
        return w.store;
      },
    });
    try {
      const first = taskOf(await send(racing.ep, binding, userMessage('input please')));
      const key = freshKey();
      const answer = keyedMessage('answer', key, { taskId: first.id });
      arm();
      const both = await Promise.all([send(racing.ep, binding, answer), send(racing.ep, binding, answer)]);
      expect(both.map((a) => taskOf(a).id)).toEqual([first.id, first.id]);
      expect(racing.agent.executionsOf(first.id).filter((e) => e.isContinuation)).toHaveLength(1);
      const e = errorOf(
        await send(racing.ep, binding, keyedMessage('something else', key, { taskId: first.id })),
      );
      expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.keyReused));
      expect(e.metadata?.heldByMessageId).toBe(answer.messageId);
    } finally {
      await racing.close();
    }
  });

  it('a keyed first send retried with the taskId it learned is a replay of that task', async () => {
    const m = keyedMessage('input please');
    const first = taskOf(await send(t.ep, binding, m));
    const again = taskOf(await send(t.ep, binding, { ...m, taskId: first.id, contextId: first.contextId }));
    expect(again.id).toBe(first.id);
    expect(t.agent.executions).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The pure guard

function record(state: TaskState, history: Message[], kind: 'task' | 'message' = 'task'): StoredTask {
  const task: Task = { id: 'task-1', contextId: 'ctx-1', status: { state }, history };
  return { task, kind, fence: 3, seq: 7, createdAt: 0, updatedAt: 0 };
}

const digestWithIds = (m: Message) => messageDigest({ ...m, contextId: 'ctx-1', taskId: 'task-1' });

describe('guardExistingTask (fast-check over the §3 table)', () => {
  const stored: Message = {
    messageId: 'm-1',
    role: 'ROLE_USER',
    parts: [{ text: 'original' }],
    contextId: 'ctx-1',
    taskId: 'task-1',
  };

  it('matches the verdict table for every state × messageId × digest × contextId', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...TASK_STATES),
        fc.boolean(), // same messageId
        fc.boolean(), // same digest (same content)
        fc.constantFrom<'absent' | 'match' | 'mismatch'>('absent', 'match', 'mismatch'),
        fc.boolean(), // the retry carries the taskId
        (state, sameId, sameDigest, ctx, withTaskId) => {
          const incoming: Message = {
            messageId: sameId ? 'm-1' : 'm-2',
            role: 'ROLE_USER',
            parts: [{ text: sameDigest ? 'original' : 'changed' }],
            ...(withTaskId ? { taskId: 'task-1' } : {}),
            ...(ctx === 'match'
              ? { contextId: 'ctx-1' }
              : ctx === 'mismatch'
                ? { contextId: 'ctx-other' }
                : {}),
          };
          const v = guardExistingTask(record(state, [stored]), incoming, digestWithIds);
          if (ctx === 'mismatch') {
            expect(v.kind).toBe('refuse');
            if (v.kind === 'refuse') {
              expect(v.error.code).toBe(-32602);
              expect(v.error.httpStatus).toBe(400);
            }
            return;
          }
          if (sameId) {
            if (sameDigest) expect(v).toEqual({ kind: 'replay' });
            else {
              expect(v.kind).toBe('refuse');
              if (v.kind === 'refuse') {
                expect(v.error.reason).toBe('IDEMPOTENCY_KEY_REUSED');
                expect(v.error.code).toBe(-32602);
              }
            }
            return;
          }
          if (state === 'TASK_STATE_INPUT_REQUIRED' || state === 'TASK_STATE_AUTH_REQUIRED') {
            expect(v).toEqual({ kind: 'continue' });
            return;
          }
          expect(v.kind).toBe('refuse');
          if (v.kind === 'refuse') {
            expect(v.error.code).toBe(-32004);
            expect(v.error.httpStatus).toBe(400);
            expect(v.error.reason).toBe('UNSUPPORTED_OPERATION');
            expect(v.error.metadata?.state).toBe(state);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('no record, or a direct-reply record, is TASK_NOT_FOUND whatever the message', () => {
    fc.assert(
      fc.property(fc.constantFrom(...TASK_STATES), fc.boolean(), (state, asMessageRecord) => {
        const rec = asMessageRecord ? record(state, [stored], 'message') : undefined;
        const v = guardExistingTask(rec, { ...stored }, digestWithIds);
        expect(v.kind).toBe('refuse');
        if (v.kind === 'refuse') {
          expect(v.error.code).toBe(-32001);
          expect(v.error.reason).toBe('TASK_NOT_FOUND');
        }
      }),
    );
  });

  it('a replay is recognised among many history entries, wherever the message sits', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...TASK_STATES),
        fc.array(fc.string({ minLength: 1, maxLength: 6 }), { maxLength: 6 }),
        fc.nat(6),
        (state, others, at) => {
          const history: Message[] = others.map((text, i) => ({
            messageId: `other-${i}`,
            role: i % 2 === 0 ? 'ROLE_AGENT' : 'ROLE_USER',
            parts: [{ text }],
            contextId: 'ctx-1',
            taskId: 'task-1',
          }));
          history.splice(Math.min(at, history.length), 0, stored);
          const v = guardExistingTask(
            record(state, history),
            { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'original' }] },
            digestWithIds,
          );
          expect(v).toEqual({ kind: 'replay' });
        },
      ),
    );
  });
});
