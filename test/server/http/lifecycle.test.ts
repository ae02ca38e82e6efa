/**
 * Task lifecycle through the HTTP surface (A2A v1.0): blocking sends by default
 * and `returnImmediately`, `historyLength`, contextId inference and mismatch rejection, terminal tasks refused
 * (-32004), one writer at a time (a send to a SUBMITTED or WORKING task refused), cancel semantics, and the
 * AgentExecutor API (status updates, artifact chunks, direct replies, failures) as seen on the wire.
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  ListTasksResponseSchema,
  SendMessageResponseSchema,
  TaskSchema,
} from '../../../src/protocol/schemas/index.js';
import { silentLogger, type A2AServer, type AgentContext } from '../../../src/server/index.js';
import { expectRpcError, rpcRequest, sleep, uid, userMsg, waitUntil } from '../../helpers/http.js';
import { builtinServer, deferred, getTask, inlineServer, rpc, rpcOk, sendTask } from './fixtures.js';

const opened: A2AServer[] = [];
function track<T extends A2AServer>(s: T): T {
  opened.push(s);
  return s;
}
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
});

const tck = track(builtinServer('tck'));
const ask = track(builtinServer('ask'));
const echo = track(builtinServer('echo'));

describe('blocking and returnImmediately (§2.4)', () => {
  it('a send blocks by default until the task is terminal, and returns its artifacts', async () => {
    const slow = track(builtinServer('slow', {}, 200));
    const t = await sendTask(slow, { message: userMsg(uid(), 'patience') });
    expect(t.status.state).toBe('TASK_STATE_COMPLETED');
    expect(t.artifacts?.[0]?.parts).toEqual([{ text: 'echo: patience' }]);
  });

  it('a blocking send returns at INPUT_REQUIRED and at AUTH_REQUIRED', async () => {
    expect((await sendTask(ask, { message: userMsg(uid(), 'x') })).status.state).toBe(
      'TASK_STATE_INPUT_REQUIRED',
    );
    const auth = await sendTask(tck, { message: userMsg(uid('tck-auth-required')) });
    expect(auth.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
    expect(auth.status.message?.role).toBe('ROLE_AGENT');
    await rpc(tck, 'CancelTask', { id: auth.id });
  });

  it('returnImmediately answers while the task is still working', async () => {
    const slow = track(builtinServer('slow', {}, 3000));
    const t0 = Date.now();
    const t = await sendTask(slow, { message: userMsg(uid()), configuration: { returnImmediately: true } });
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(t.status.state);
    await rpc(slow, 'CancelTask', { id: t.id });
  });

  it('returnImmediately answers right after the task is created, even if the agent is slow to report', async () => {
    const gate = deferred();
    const s = track(
      inlineServer(async (ctx) => {
        await Promise.race([gate.promise, sleep(3000)]);
        await ctx.complete('late');
      }),
    );
    const t0 = Date.now();
    const t = await sendTask(s, { message: userMsg(uid()), configuration: { returnImmediately: true } });
    const elapsed = Date.now() - t0;
    gate.resolve();
    expect(elapsed).toBeLessThan(1000);
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(t.status.state);
  });

  it('a blocking send answers with the current snapshot after blockingTimeoutMs', async () => {
    const slow = track(builtinServer('slow', { blockingTimeoutMs: 200 }, 3000));
    const t0 = Date.now();
    const t = await sendTask(slow, { message: userMsg(uid()) });
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(t.status.state).toBe('TASK_STATE_WORKING');
    await rpc(slow, 'CancelTask', { id: t.id });
  });
});

describe('historyLength on SendMessage and GetTask (§2.5)', () => {
  it('0 omits history, n keeps the n most recent, unset keeps all', async () => {
    const full = await sendTask(tck, { message: userMsg(uid('tck-complete-task')) });
    expect(full.history?.length).toBe(2);
    const env = await rpc(tck, 'SendMessage', {
      message: userMsg(uid('tck-complete-task')),
      configuration: { historyLength: 0 },
    });
    expect((env.result as { task: object }).task).not.toHaveProperty('history');
    const one = await sendTask(tck, {
      message: userMsg(uid('tck-complete-task')),
      configuration: { historyLength: 1 },
    });
    expect(one.history).toHaveLength(1);
    expect(one.history?.[0]?.role).toBe('ROLE_AGENT');
    const g0 = await rpc(tck, 'GetTask', { id: full.id, historyLength: 0 });
    expect(g0.result).not.toHaveProperty('history');
    expect((await getTask(tck, full.id, { historyLength: 1 })).history).toHaveLength(1);
    expect((await getTask(tck, full.id)).history).toHaveLength(2);
  });

  it('a negative historyLength is a validation error', async () => {
    const t = await sendTask(tck, { message: userMsg(uid('tck-complete-task')) });
    expectRpcError(await rpc(tck, 'GetTask', { id: t.id, historyLength: -1 }), -32602, 'INVALID_PARAMS');
  });
});

describe('contextId and taskId rules (§3)', () => {
  it('the server generates a contextId for a new task, and keeps one the client supplied', async () => {
    const a = await sendTask(echo, { message: userMsg(uid()) });
    expect(a.contextId).toBeTruthy();
    const b = await sendTask(echo, { message: userMsg(uid(), 'x', { contextId: 'client-ctx-1' }) });
    expect(b.contextId).toBe('client-ctx-1');
    expect(b.history?.[0]?.contextId).toBe('client-ctx-1');
    expect(b.history?.[0]?.taskId).toBe(b.id);
  });

  it('a follow-up with only taskId inherits the task’s contextId', async () => {
    const first = await sendTask(ask, { message: userMsg(uid(), 'write a haiku') });
    expect(first.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const second = await sendTask(ask, { message: userMsg(uid(), 'Bob', { taskId: first.id }) });
    expect(second.id).toBe(first.id);
    expect(second.contextId).toBe(first.contextId);
    expect(second.status.state).toBe('TASK_STATE_COMPLETED');
    expect(second.artifacts?.[0]?.parts).toEqual([{ text: 'Bob: write a haiku' }]);
    for (const m of second.history ?? []) {
      expect(m.contextId).toBe(first.contextId);
      expect(m.taskId).toBe(first.id);
    }
  });

  it('a follow-up whose contextId differs from the task’s is rejected (-32602) and changes nothing', async () => {
    const first = await sendTask(ask, { message: userMsg(uid(), 'q') });
    const env = await rpc(ask, 'SendMessage', {
      message: userMsg(uid(), 'a', { taskId: first.id, contextId: 'some-other-context' }),
    });
    expectRpcError(env, -32602, 'INVALID_PARAMS');
    const after = await getTask(ask, first.id);
    expect(after.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(after.history?.length).toBe(first.history?.length);
  });

  it('a taskId that does not exist is -32001 (client-chosen ids for new tasks are not supported)', async () => {
    expectRpcError(
      await rpc(echo, 'SendMessage', { message: userMsg(uid(), 'x', { taskId: 'made-up-task-id' }) }),
      -32001,
      'TASK_NOT_FOUND',
    );
  });
});

describe('terminal tasks and one writer at a time', () => {
  for (const [prefix, state] of [
    ['tck-complete-task', 'TASK_STATE_COMPLETED'],
    ['tck-reject-task', 'TASK_STATE_REJECTED'],
  ] as const) {
    it(`a message to a ${state} task is -32004 (SendMessage and SendStreamingMessage)`, async () => {
      const t = await sendTask(tck, { message: userMsg(uid(prefix)) });
      expect(t.status.state).toBe(state);
      const msg = userMsg(uid('tck-complete-task'), 'again', { taskId: t.id });
      expectRpcError(await rpc(tck, 'SendMessage', { message: msg }), -32004, 'UNSUPPORTED_OPERATION');
      expectRpcError(
        await rpc(tck, 'SendStreamingMessage', { message: msg }),
        -32004,
        'UNSUPPORTED_OPERATION',
      );
    });
  }

  it('a message to a CANCELED or FAILED task is -32004', async () => {
    const c = await sendTask(ask, { message: userMsg(uid(), 'q') });
    await rpcOk(ask, 'CancelTask', { id: c.id }, TaskSchema);
    expectRpcError(
      await rpc(ask, 'SendMessage', { message: userMsg(uid(), 'a', { taskId: c.id }) }),
      -32004,
      'UNSUPPORTED_OPERATION',
    );
    const failing = track(
      inlineServer(() => {
        throw new Error('boom');
      }),
    );
    const f = await sendTask(failing, { message: userMsg(uid()) });
    expect(f.status.state).toBe('TASK_STATE_FAILED');
    expectRpcError(
      await rpc(failing, 'SendMessage', { message: userMsg(uid(), 'a', { taskId: f.id }) }),
      -32004,
      'UNSUPPORTED_OPERATION',
    );
  });

  it('a second message to a WORKING task is refused with -32004 and the task goes on', async () => {
    const slow = track(builtinServer('slow', {}, 600));
    const t = await sendTask(slow, {
      message: userMsg(uid(), 'first'),
      configuration: { returnImmediately: true },
    });
    expect(t.status.state).toBe('TASK_STATE_WORKING');
    expectRpcError(
      await rpc(slow, 'SendMessage', { message: userMsg(uid(), 'second', { taskId: t.id }) }),
      -32004,
      'UNSUPPORTED_OPERATION',
    );
    await waitUntil(async () => (await getTask(slow, t.id)).status.state === 'TASK_STATE_COMPLETED', 5000);
    const done = await getTask(slow, t.id);
    expect(done.artifacts?.[0]?.parts).toEqual([{ text: 'echo: first' }]);
    expect(done.history?.filter((m) => m.role === 'ROLE_USER')).toHaveLength(1);
  });

  it('a second message to a SUBMITTED task is refused with -32004', async () => {
    const gate = deferred();
    const s = track(
      inlineServer(async (ctx) => {
        await Promise.race([gate.promise, sleep(5000)]);
        await ctx.complete();
      }),
    );
    const pending = s.fetch(rpcRequest('SendMessage', { message: userMsg(uid()) }));
    let taskId = '';
    await waitUntil(async () => {
      const l = await rpcOk(s, 'ListTasks', {}, ListTasksResponseSchema);
      taskId = l.tasks[0]?.id ?? '';
      return taskId !== '';
    });
    expect((await getTask(s, taskId)).status.state).toBe('TASK_STATE_SUBMITTED');
    expectRpcError(
      await rpc(s, 'SendMessage', { message: userMsg(uid(), 'second', { taskId }) }),
      -32004,
      'UNSUPPORTED_OPERATION',
    );
    gate.resolve();
    const res = await pending;
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });
});

describe('cancel semantics', () => {
  it('cancel of a WORKING task returns CANCELED, stops the agent, and is idempotent', async () => {
    const slow = track(builtinServer('slow', {}, 400));
    const t = await sendTask(slow, { message: userMsg(uid()), configuration: { returnImmediately: true } });
    const c = await rpcOk(slow, 'CancelTask', { id: t.id }, TaskSchema);
    expect(c.id).toBe(t.id);
    expect(c.status.state).toBe('TASK_STATE_CANCELED');
    const again = await rpcOk(slow, 'CancelTask', { id: t.id }, TaskSchema);
    expect(again.status.state).toBe('TASK_STATE_CANCELED');
    await sleep(600);
    const later = await getTask(slow, t.id);
    expect(later.status.state).toBe('TASK_STATE_CANCELED');
    expect(later.artifacts ?? []).toHaveLength(0);
  });

  it('a blocking send in flight returns the CANCELED task when the task is cancelled', async () => {
    const slow = track(builtinServer('slow', {}, 3000));
    const pending = sendTask(slow, { message: userMsg(uid()) });
    let id = '';
    await waitUntil(async () => {
      const l = await rpcOk(slow, 'ListTasks', {}, ListTasksResponseSchema);
      id = l.tasks[0]?.id ?? '';
      return id !== '';
    });
    await rpcOk(slow, 'CancelTask', { id }, TaskSchema);
    const t = await pending;
    expect(t.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('cancel of an INPUT_REQUIRED task succeeds', async () => {
    const t = await sendTask(ask, { message: userMsg(uid(), 'q') });
    expect((await rpcOk(ask, 'CancelTask', { id: t.id }, TaskSchema)).status.state).toBe(
      'TASK_STATE_CANCELED',
    );
  });

  it('cancel of a COMPLETED task is -32002, of an unknown task -32001', async () => {
    const t = await sendTask(echo, { message: userMsg(uid()) });
    expectRpcError(await rpc(echo, 'CancelTask', { id: t.id }), -32002, 'TASK_NOT_CANCELABLE');
    expectRpcError(await rpc(echo, 'CancelTask', { id: 'nope' }), -32001, 'TASK_NOT_FOUND');
    expect((await getTask(echo, t.id)).status.state).toBe('TASK_STATE_COMPLETED');
  });
});

describe('AgentExecutor API on the wire', () => {
  const agentApi = track(
    inlineServer(async (ctx) => {
      if (ctx.userText === 'reply') {
        await ctx.reply('a direct answer');
        return;
      }
      if (ctx.userText === 'silent') return;
      await ctx.working('thinking');
      const a = await ctx.artifact({ name: 'doc', parts: [{ text: 'part-1' }] }, { append: true });
      await ctx.artifact(
        { artifactId: a.artifactId, parts: [{ text: 'part-2' }] },
        { append: true, lastChunk: true },
      );
      await ctx.artifact({ artifactId: 'replaced', parts: [{ text: 'old' }] });
      await ctx.artifact({ artifactId: 'replaced', parts: [{ text: 'new' }] });
      await ctx.status('TASK_STATE_COMPLETED', 'all done', { score: 1 });
    }),
  );

  it('status messages land in history, chunks append, a same-id artifact replaces', async () => {
    const t = await sendTask(agentApi, { message: userMsg(uid(), 'go') });
    expect(t.status.state).toBe('TASK_STATE_COMPLETED');
    expect(t.status.message?.parts).toEqual([{ text: 'all done' }]);
    expect(t.status.message?.role).toBe('ROLE_AGENT');
    expect(t.status.message?.taskId).toBe(t.id);
    expect(t.status.message?.contextId).toBe(t.contextId);
    expect(t.artifacts).toHaveLength(2);
    expect(t.artifacts?.[0]).toMatchObject({ name: 'doc', parts: [{ text: 'part-1' }, { text: 'part-2' }] });
    expect(t.artifacts?.[1]).toMatchObject({ artifactId: 'replaced', parts: [{ text: 'new' }] });
    const texts = (t.history ?? []).map((m) => m.parts.map((p) => ('text' in p ? p.text : '')).join(''));
    expect(texts).toEqual(['go', 'thinking', 'all done']);
  });

  it('a direct reply is answered as {message} and no task is listed', async () => {
    const r = await rpcOk(
      agentApi,
      'SendMessage',
      { message: userMsg(uid(), 'reply') },
      SendMessageResponseSchema,
    );
    if (!('message' in r)) throw new Error('expected a message');
    expect(r.message.parts).toEqual([{ text: 'a direct answer' }]);
    const listed = await rpcOk(agentApi, 'ListTasks', {}, ListTasksResponseSchema);
    for (const t of listed.tasks) expect(t.history?.[0]?.parts).not.toEqual([{ text: 'reply' }]);
  });

  it('an agent that returns without reporting completes its task', async () => {
    expect((await sendTask(agentApi, { message: userMsg(uid(), 'silent') })).status.state).toBe(
      'TASK_STATE_COMPLETED',
    );
  });

  it("an agent that throws fails its task with a generic status message naming an error id; 'expose' adds the message", async () => {
    const execute = async (ctx: AgentContext) => {
      await ctx.working();
      throw new Error('disk on fire');
    };
    const failing = track(inlineServer(execute, {}, { logger: silentLogger }));
    const t = await sendTask(failing, { message: userMsg(uid()) });
    expect(t.status.state).toBe('TASK_STATE_FAILED');
    expect(JSON.stringify(t.status.message?.parts)).toMatch(/The agent failed \(error id err_[0-9a-f]{16}\)/);
    expect(JSON.stringify(t)).not.toContain('disk on fire');
    // ADR 0081: the message stays in the log unless the host says otherwise.
    const exposing = track(inlineServer(execute, {}, { logger: silentLogger, agentErrorMessage: 'expose' }));
    const e = await sendTask(exposing, { message: userMsg(uid()) });
    expect(JSON.stringify(e.status.message?.parts)).toMatch(/The agent failed: disk on fire \(error id err_/);
  });
});
