/**
 * The agent cannot change what was stored at admission (ADR 0030): `ctx.message` is the very message kept in
 * the task's history (and, on the memory store, the one a keyed retry's digest is later compared with), and
 * `ctx.task` is the stored task. Both are frozen before the agent runs, so an agent that tries to mutate them
 * changes neither GetTask's answer nor the verdict on an identical keyed retry. On memory and SQLite.
 */
import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_METADATA_KEY } from '../../../src/idempotency/index.js';
import type { Message } from '../../../src/protocol/model.js';
import type { AgentContext, AgentExecutor } from '../../../src/server/agent-executor.js';
import { ManualClock } from '../../../src/store/clock.js';
import {
  BINDINGS,
  freshKey,
  getTask,
  keyedMessage,
  send,
  serversClosedAfterEach,
  taskOf,
  type Binding,
} from '../duplicate-safety/helpers.js';
import { BACKENDS } from './backends.js';

/** Tries every mutation an agent might make of its input, records which were refused, then completes. */
class MutatingAgent implements AgentExecutor {
  runs = 0;
  readonly outcomes: string[] = [];

  #try(what: string, mutate: () => void): void {
    try {
      mutate();
      this.outcomes.push(`${what}: changed`);
    } catch {
      this.outcomes.push(`${what}: refused`);
    }
  }

  async execute(ctx: AgentContext): Promise<void> {
    this.runs++;
    const injected: Message = { messageId: 'injected', role: 'ROLE_AGENT', parts: [{ text: 'injected' }] };
    this.#try('message.parts push', () => ctx.message.parts.push({ text: 'injected' }));
    this.#try('message.parts[0] text', () => {
      (ctx.message.parts[0] as { text: string }).text = 'rewritten';
    });
    this.#try('message.metadata add', () => {
      ctx.message.metadata!.injected = true;
    });
    this.#try('message.metadata key', () => {
      ctx.message.metadata![IDEMPOTENCY_METADATA_KEY] = 'dup-key-rewritten-by-the-agent';
    });
    this.#try('task.history push', () => ctx.task.history!.push(injected));
    this.#try('task.history[0] parts', () => ctx.task.history![0]!.parts.splice(0));
    this.#try('task.status', () => {
      (ctx.task.status as { state: string }).state = 'TASK_STATE_COMPLETED';
    });
    await ctx.complete('done');
  }
}

const ALL_REFUSED = [
  'message.parts push: refused',
  'message.parts[0] text: refused',
  'message.metadata add: refused',
  'message.metadata key: refused',
  'task.history push: refused',
  'task.history[0] parts: refused',
  'task.status: refused',
];

describe.each(BACKENDS.map((b) => [b.name, b] as const))('frozen agent input on %s', (_name, backend) => {
  const server = serversClosedAfterEach();

  describe.each(BINDINGS)('over %s', (binding: Binding) => {
    it('mutations of ctx.message and ctx.task are refused; GetTask and a keyed retry see what was sent', async () => {
      const clock = new ManualClock();
      const store = await backend.open(clock);
      const agent = new MutatingAgent();
      const t = server({ store, clock, agent });
      const key = freshKey();
      const sent = keyedMessage('hello', key);
      const first = taskOf(await send(t.ep, binding, sent));
      expect(first.status.state).toBe('TASK_STATE_COMPLETED');

      const stored = taskOf(await getTask(t.ep, binding, first.id));
      expect(stored.history).toHaveLength(2); // the user's message and the agent's "done"
      expect(stored.history![0]).toEqual({
        ...sent,
        taskId: first.id,
        contextId: first.contextId,
      });

      // The identical retry is a replay, not a conflict: the digest still matches what was sent.
      const retry = await send(t.ep, binding, sent);
      expect(retry.kind, JSON.stringify(retry)).toBe('task');
      expect(taskOf(retry).id).toBe(first.id);
      expect(agent.runs).toBe(1);
      // Every attempt threw (strict-mode assignment to a frozen object) and the agent carried on.
      expect(agent.outcomes).toEqual(ALL_REFUSED);
    });
  });

  it('an agent that mutates its input without catching fails its own turn; what was stored stays', async () => {
    const clock = new ManualClock();
    const store = await backend.open(clock);
    const careless: AgentExecutor = {
      async execute(ctx) {
        ctx.message.parts.push({ text: 'injected' });
        await ctx.complete('never reached');
      },
    };
    const t = server({ store, clock, agent: careless });
    const sent = keyedMessage('hello');
    const task = taskOf(await send(t.ep, 'rest', sent));
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(task.history![0]!.parts).toEqual([{ text: 'hello' }]);
  });
});
