/**
 * An agent's own error text does not reach its callers (ADR 0081): a turn that throws fails its task with a
 * generic status message naming an error id, and the server's log line with that id carries the message and the
 * stack. `agentErrorMessage` chooses other text; `ctx.fail(text)` sends the text given. A write after the task
 * finished is refused with `TaskFinishedError` and, uncaught, logged, the task left as it finished (ADR 0082).
 * On a real server over HTTP, on every store: the FAILED status and the refusals are writes through the store.
 */
import { describe, expect, it } from 'vitest';
import { A2AClient } from '../../../src/client/index.js';
import type { Task } from '../../../src/protocol/model.js';
import {
  TaskFinishedError,
  type AgentContext,
  type AgentExecutor,
} from '../../../src/server/agent-executor.js';
import { serveNode } from '../../../src/server/node/index.js';
import type { A2AServerOptions } from '../../../src/server/options.js';
import { createA2AServer } from '../../../src/server/create-server.js';
import { IDEMPOTENCY_METADATA_KEY } from '../../../src/idempotency/index.js';
import { AGENT_ERROR_METADATA_KEY, type AgentErrorInfo } from '../../../src/server/runner/agent-failure.js';
import { readSse, rpcJson, rpcRequest, userMsg, uid } from '../../helpers/http.js';
import {
  freshStore,
  replica,
  STORE_KINDS,
  textOf,
  until,
  type KeptLine,
  type StoreKind,
} from '../leases/harness.js';
import { closeNode } from '../../helpers/close-node.js';

const SECRET = 'db password is hunter2';
/** Where the agent's stack points: this file. A caller must never see it. */
const THIS_FILE = 'agent-errors.test';

class LedgerUnavailable extends Error {
  override name = 'LedgerUnavailable';
}

const throwing: AgentExecutor = {
  async execute(ctx) {
    await ctx.working('looking it up');
    throw new LedgerUnavailable(SECRET);
  },
};

/** A real server on `kind`, listening on loopback; closed after the test. */
async function listening(kind: StoreKind, agent: AgentExecutor, extra: Partial<A2AServerOptions> = {}) {
  const s = await freshStore(kind);
  const server = replica(s, s.store, agent, extra);
  const handle = await serveNode(server.fetch, { host: '127.0.0.1', port: 0 });
  const rpc = async (method: string, params: unknown): Promise<Record<string, unknown>> => {
    const env = await rpcJson(await fetch(rpcRequest(method, params, { base: handle.url })));
    if (env.error) throw new Error(`${method} answered ${JSON.stringify(env.error)}`);
    return env.result as Record<string, unknown>;
  };
  const send = async (message: Record<string, unknown>): Promise<Task> =>
    (await rpc('SendMessage', { message })).task as Task;
  const getTask = async (id: string): Promise<Task> => (await rpc('GetTask', { id })) as unknown as Task;
  return { server, url: handle.url, rpc, send, getTask, close: () => closeNode(handle) };
}

function linesNamed(lines: readonly KeptLine[], message: string): KeptLine[] {
  return lines.filter((l) => l.message === message);
}

/** The error id a generic status text names. */
function errorIdIn(text: string): string {
  const m =
    /^The agent failed \(error id (err_[0-9a-f]{16})\)\. Its operator can find the cause in the server's log\.$/.exec(
      text,
    );
  if (!m) throw new Error(`not the generic failure text: ${JSON.stringify(text)}`);
  return m[1]!;
}

describe.each(STORE_KINDS)('an agent that throws, on %s', (kind) => {
  it('fails its task with a generic message and an error id; the log line with that id has the message and stack', async () => {
    const { server, url, rpc, send, getTask, close } = await listening(kind, throwing);
    try {
      const task = await send(userMsg(uid('secret')));
      expect(task.status.state).toBe('TASK_STATE_FAILED');
      const errorId = errorIdIn(textOf(task.status.message));
      expect(task.status.message?.metadata?.[AGENT_ERROR_METADATA_KEY]).toBe(errorId);
      const got = await getTask(task.id);
      expect(got.status).toEqual(task.status);

      const streamed = await fetch(
        rpcRequest('SendStreamingMessage', { message: userMsg(uid('secret-stream')) }, { base: url }),
      );
      const frames = await readSse(streamed);
      type Frame = { result: { statusUpdate?: { taskId: string; status: Task['status'] } } };
      const last = (frames.at(-1)!.data as Frame).result.statusUpdate;
      expect(last?.status.state).toBe('TASK_STATE_FAILED');
      const streamId = errorIdIn(textOf(last?.status.message));
      expect(last?.status.message?.metadata?.[AGENT_ERROR_METADATA_KEY]).toBe(streamId);
      expect(streamId).not.toBe(errorId);
      const history = await rpc('GetTask', { id: last!.taskId, historyLength: 10 });

      // Nothing a caller received holds the error's message, its name or a line of its stack.
      const seen = [task, got, frames.map((f) => f.data), history].map((x) => JSON.stringify(x));
      for (const answer of seen) {
        expect(answer).not.toContain('hunter2');
        expect(answer).not.toContain(THIS_FILE);
        expect(answer).not.toContain('LedgerUnavailable');
      }

      // One line per failed turn, each with its task, its id, the error's name, message and stack.
      const lines = linesNamed(server.logger.lines, 'agent turn failed');
      expect(lines).toHaveLength(2);
      for (const [line, id, taskId] of [
        [lines[0]!, errorId, task.id],
        [lines[1]!, streamId, last!.taskId],
      ] as const) {
        expect(line.level).toBe('error');
        expect(line.fields).toMatchObject({
          taskId,
          errorId: id,
          errorName: 'LedgerUnavailable',
          error: SECRET,
        });
        expect(String(line.fields?.stack)).toContain(`LedgerUnavailable: ${SECRET}`);
        expect(String(line.fields?.stack)).toContain(THIS_FILE);
      }
    } finally {
      await close();
    }
  });
});

describe('agentErrorMessage and ctx.fail', () => {
  it("'expose' sends the message, never the stack, the error id beside it", async () => {
    const { server, send, close } = await listening('memory', throwing, { agentErrorMessage: 'expose' });
    try {
      const task = await send(userMsg(uid('exposed')));
      expect(task.status.state).toBe('TASK_STATE_FAILED');
      const [line] = linesNamed(server.logger.lines, 'agent turn failed');
      const errorId = String(line?.fields?.errorId);
      expect(textOf(task.status.message)).toBe(`The agent failed: ${SECRET} (error id ${errorId})`);
      expect(task.status.message?.metadata?.[AGENT_ERROR_METADATA_KEY]).toBe(errorId);
      expect(JSON.stringify(task)).not.toContain(THIS_FILE);
    } finally {
      await close();
    }
  });

  it("'expose' hides an idempotency key the message holds, as the log line does", async () => {
    const key = 'exposed-key-0123456789';
    const agent: AgentExecutor = {
      execute: () => Promise.reject(new Error(`could not look up ${key}`)),
    };
    const { server, send, close } = await listening('memory', agent, { agentErrorMessage: 'expose' });
    try {
      const task = await send(
        userMsg(uid('keyed'), 'hello', { metadata: { [IDEMPOTENCY_METADATA_KEY]: key } }),
      );
      expect(textOf(task.status.message)).toMatch(
        /^The agent failed: could not look up <key [^>]+> \(error id/,
      );
      expect(JSON.stringify(server.logger.lines)).not.toContain(key);
    } finally {
      await close();
    }
  });

  it('a function chooses the text, told the error, its id and the task; undefined means the generic text', async () => {
    const told: { error: unknown; info: AgentErrorInfo }[] = [];
    const { server, send, close } = await listening('memory', throwing, {
      agentErrorMessage: (error, info) => {
        told.push({ error, info });
        if (told.length === 2) return undefined;
        return error instanceof LedgerUnavailable ? `The ledger is down; quote ${info.errorId}` : undefined;
      },
    });
    try {
      const chosen = await send(userMsg(uid('chosen')));
      const generic = await send(userMsg(uid('generic')));
      const lines = linesNamed(server.logger.lines, 'agent turn failed');
      expect(told).toHaveLength(2);
      expect(told[0]!.error).toBeInstanceOf(LedgerUnavailable);
      expect(told[0]!.info).toEqual({
        errorId: lines[0]!.fields?.errorId,
        taskId: chosen.id,
        genericMessage: `The agent failed (error id ${String(lines[0]!.fields?.errorId)}). Its operator can find the cause in the server's log.`,
      });
      expect(textOf(chosen.status.message)).toBe(`The ledger is down; quote ${told[0]!.info.errorId}`);
      expect(chosen.status.message?.metadata?.[AGENT_ERROR_METADATA_KEY]).toBe(told[0]!.info.errorId);
      expect(told[1]!.info.taskId).toBe(generic.id);
      expect(errorIdIn(textOf(generic.status.message))).toBe(told[1]!.info.errorId);
    } finally {
      await close();
    }
  });

  it('a function that throws gets the generic text sent, and its own error logged', async () => {
    const { server, send, close } = await listening('memory', throwing, {
      agentErrorMessage: () => {
        throw new Error('the chooser broke');
      },
    });
    try {
      const task = await send(userMsg(uid('chooser-broke')));
      const errorId = errorIdIn(textOf(task.status.message));
      const [line] = linesNamed(
        server.logger.lines,
        'agentErrorMessage threw; the caller gets the generic message',
      );
      expect(line?.fields).toMatchObject({ taskId: task.id, errorId, error: 'the chooser broke' });
    } finally {
      await close();
    }
  });

  it('ctx.fail(text) sends exactly that text, and nothing is logged as a failure', async () => {
    const agent: AgentExecutor = { execute: (ctx) => ctx.fail('chosen') };
    const { server, send, close } = await listening('memory', agent);
    try {
      const task = await send(userMsg(uid('fail')));
      expect(task.status.state).toBe('TASK_STATE_FAILED');
      expect(textOf(task.status.message)).toBe('chosen');
      expect(task.status.message?.metadata?.[AGENT_ERROR_METADATA_KEY]).toBeUndefined();
      expect(server.logger.lines.filter((l) => l.level === 'error' || l.level === 'warn')).toEqual([]);
    } finally {
      await close();
    }
  });

  it('anything but the three forms is refused when the server is created', () => {
    const bad = { agentErrorMessage: 'verbose' } as unknown as Partial<A2AServerOptions>;
    expect(() => createA2AServer({ agent: throwing, card: { name: 'x', description: 'x' }, ...bad })).toThrow(
      /agentErrorMessage must be 'generic', 'expose' or a function \(error, info\) => string, got "verbose"/,
    );
  });
});

describe("errors about the caller's delegation chain", () => {
  it("keep their words: a peer's depth refusal reaches the caller, rebuilt by the client or not", async () => {
    const peer = await listening(
      'memory',
      { execute: (ctx) => ctx.complete('never') },
      { delegation: { maxDepth: 0 } },
    );
    try {
      const deep = await A2AClient.fromCardUrl(peer.url);
      const { send, server, close } = await listening('memory', {
        execute: async (ctx) => void (await ctx.delegate(deep, 'go deeper')),
      });
      try {
        const task = await send(userMsg(uid('deep')));
        expect(task.status.state).toBe('TASK_STATE_FAILED');
        const [line] = linesNamed(server.logger.lines, 'agent turn failed');
        expect(textOf(task.status.message)).toMatch(
          /^The agent failed: Delegation refused: the task would be hop 1 of delegation chain [A-Za-z0-9_-]{22}, past the limit of 0 hop\(s\) below its root; .* \(error id err_[0-9a-f]{16}\)$/,
        );
        expect(textOf(task.status.message)).toContain(String(line?.fields?.errorId));
      } finally {
        await close();
      }
    } finally {
      await peer.close();
    }
  });
});

describe.each(STORE_KINDS)('a write after the task finished, on %s', (kind) => {
  const FIRST = { artifactId: 'a1', parts: [{ text: 'first' }] };
  const expectFinished = async (task: Task, getTask: (id: string) => Promise<Task>) => {
    const now = await getTask(task.id);
    expect(now.status.state).toBe('TASK_STATE_COMPLETED');
    expect(textOf(now.status.message)).toBe('done');
    expect(now.artifacts).toEqual([FIRST]);
    expect(now.status).toEqual(task.status);
  };

  it('is refused with TaskFinishedError naming the task and the write; caught, the task is as it finished', async () => {
    const refused: unknown[] = [];
    const agent: AgentExecutor = {
      async execute(ctx: AgentContext) {
        await ctx.artifact(FIRST);
        await ctx.complete('done');
        const late = [
          () => ctx.complete('again'),
          () => ctx.artifact({ artifactId: 'a1', parts: [{ text: 'changed' }] }),
          () => ctx.artifact({ parts: [{ text: 'another' }] }),
          () => ctx.reply('a reply'),
          () => ctx.step('late', () => 1),
        ];
        for (const write of late)
          refused.push(
            await write().then(
              () => 'accepted',
              (err: unknown) => err,
            ),
          );
      },
    };
    const { server, send, getTask, close } = await listening(kind, agent);
    try {
      const task = await send(userMsg(uid('twice')));
      await until(() => refused.length === 5);
      for (const err of refused) {
        expect(err).toBeInstanceOf(TaskFinishedError);
        expect((err as TaskFinishedError).name).toBe('TaskFinishedError');
        expect((err as TaskFinishedError).taskId).toBe(task.id);
      }
      const errs = refused as TaskFinishedError[];
      expect(errs.map((e) => [e.write, e.state])).toEqual([
        ['status', 'TASK_STATE_COMPLETED'],
        ['artifact', undefined],
        ['artifact', undefined],
        ['reply', undefined],
        ['step', undefined],
      ]);
      expect(errs[0]!.message).toBe(
        `task ${task.id} is already finished; the status TASK_STATE_COMPLETED was refused ` +
          '(nothing is accepted after the write that ends a turn)',
      );
      await server.handler.close(); // every turn has settled
      await expectFinished(task, getTask);
      expect(server.logger.lines.filter((l) => l.level === 'error' || l.level === 'warn')).toEqual([]);
    } finally {
      await close();
    }
  });

  it('uncaught, it is logged with the task, its name and the stack of the late write; the task stays COMPLETED', async () => {
    const agent: AgentExecutor = {
      async execute(ctx) {
        await ctx.artifact(FIRST);
        await ctx.complete('done');
        await ctx.artifact({ artifactId: 'a1', parts: [{ text: 'changed' }] });
      },
    };
    const { server, send, getTask, close } = await listening(kind, agent);
    try {
      const task = await send(userMsg(uid('uncaught')));
      const named = 'agent turn threw after its task finished; the task is left as it is';
      await until(() => linesNamed(server.logger.lines, named).length === 1);
      const [line] = linesNamed(server.logger.lines, named);
      expect(line?.level).toBe('warn');
      expect(line?.fields).toMatchObject({
        taskId: task.id,
        state: 'TASK_STATE_COMPLETED',
        errorName: 'TaskFinishedError',
        error: `task ${task.id} is already finished; the artifact was refused (nothing is accepted after the write that ends a turn)`,
      });
      expect(String(line?.fields?.stack)).toContain(THIS_FILE);
      expect(linesNamed(server.logger.lines, 'agent turn failed')).toEqual([]);
      await server.handler.close();
      await expectFinished(task, getTask);
    } finally {
      await close();
    }
  });

  it('made after the turn returned and awaited by nobody, it is logged when made, not left an unhandled rejection', async () => {
    let late: Promise<unknown> | undefined;
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const agent: AgentExecutor = {
      async execute(ctx) {
        await ctx.artifact(FIRST);
        await ctx.complete('done');
        // A timer the agent forgot: it fires after the turn returned, and nobody handles what it writes.
        setTimeout(() => {
          late = ctx.artifact({ parts: [{ text: 'too late' }] });
        }, 30);
      },
    };
    const { server, send, getTask, close } = await listening(kind, agent);
    try {
      const task = await send(userMsg(uid('forgotten')));
      const named = 'a write came after the turn ended; refused, its task is finished';
      await until(() => linesNamed(server.logger.lines, named).length === 1);
      await new Promise((r) => setTimeout(r, 50)); // an unhandled rejection is reported within a tick or two
      expect(unhandled).toEqual([]);
      const [line] = linesNamed(server.logger.lines, named);
      expect(line?.fields).toMatchObject({
        taskId: task.id,
        write: 'artifact',
        errorName: 'TaskFinishedError',
      });
      expect(String(line?.fields?.stack)).toContain(THIS_FILE);
      // The write's own promise still rejects with the named error, for code that does look.
      await expect(late).rejects.toBeInstanceOf(TaskFinishedError);
      await expectFinished(task, getTask);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await close();
    }
  });
});
