/**
 * The races, over real sockets (serveNode) and counted from outside with the effects log.
 * - 100 concurrent identical keyed sends: exactly one execution, 100 answers naming the same task, for blocking,
 *   non-blocking and streaming sends, over JSON-RPC and REST;
 * - 100 concurrent sends sharing a key under different messageIds: exactly one execution, the rest refused;
 * - one continuation retried 20 times concurrently: it runs once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../../src/protocol/model.js';
import { createAgent, EffectsLog, readEffects } from '../../../src/cli/agents/index.js';
import { createA2AServer, type A2AServer } from '../../../src/server/create-server.js';
import { serveNode, type NodeServerHandle } from '../../../src/server/node/index.js';
import {
  BINDINGS,
  REFUSALS,
  eventLabels,
  expectedShape,
  freshKey,
  getTask,
  keyedMessage,
  overSocket,
  refusalShape,
  send,
  streamAll,
  taskIdOf,
  taskOf,
  until,
  userMessage,
  withTimeout,
  type Binding,
  type Endpoint,
} from './helpers.js';
import { closeNode } from '../../helpers/close-node.js';

const N = 100;
const CONTINUATIONS = 20;

interface Served {
  readonly server: A2AServer;
  readonly handle: NodeServerHandle;
  readonly ep: Endpoint;
  readonly log: string;
}

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-races-'));

async function serve(name: 'slow' | 'ask', delayMs: number): Promise<Served> {
  const log = join(dir, `${name}.jsonl`);
  const agent = createAgent(name, { effectsLog: new EffectsLog(log), delayMs });
  const server = createA2AServer({ agent: agent.executor, card: agent.card });
  const handle = await serveNode(server.fetch);
  return { server, handle, ep: overSocket(handle.url), log };
}

function executionsOf(s: Served, messageIds: ReadonlySet<string>): number {
  return readEffects(s.log).filter((e) => messageIds.has(e.messageId)).length;
}

let slow: Served;
let ask: Served;

beforeAll(async () => {
  slow = await serve('slow', 200);
  ask = await serve('ask', 0);
});

afterAll(async () => {
  for (const s of [slow, ask]) {
    await withTimeout(closeNode(s.handle), 5000, 'socket close').catch(() => undefined);
    await withTimeout(s.server.close(), 5000, 'server close').catch(() => undefined);
  }
  rmSync(dir, { recursive: true, force: true });
});

async function waitCompleted(s: Served, binding: Binding, taskId: string): Promise<void> {
  await until(
    async () => {
      const a = await getTask(s.ep, binding, taskId);
      return a.kind === 'task' && a.task.status.state === 'TASK_STATE_COMPLETED';
    },
    10_000,
    `task ${taskId} completed`,
  );
}

describe.each(BINDINGS)('%s: 100 concurrent identical keyed sends run once', (binding: Binding) => {
  it('blocking: one execution, 100 answers naming the same COMPLETED task', async () => {
    const m = keyedMessage(`race blocking ${binding}`);
    const answers = await Promise.all(Array.from({ length: N }, () => send(slow.ep, binding, m)));
    const tasks = answers.map(taskOf);
    expect(new Set(tasks.map((t) => t.id)).size).toBe(1);
    expect(tasks.every((t) => t.status.state === 'TASK_STATE_COMPLETED')).toBe(true);
    expect(executionsOf(slow, new Set([m.messageId]))).toBe(1);
  });

  it('non-blocking (returnImmediately): one execution, 100 answers naming the same task', async () => {
    const m = keyedMessage(`race non-blocking ${binding}`);
    const answers = await Promise.all(
      Array.from({ length: N }, () => send(slow.ep, binding, m, { returnImmediately: true })),
    );
    const ids = new Set(answers.map((a) => taskOf(a).id));
    expect(ids.size).toBe(1);
    await waitCompleted(slow, binding, [...ids][0]!);
    expect(executionsOf(slow, new Set([m.messageId]))).toBe(1);
  });

  it('streaming: one execution, 100 streams about the same task, each ending at COMPLETED', async () => {
    const m = keyedMessage(`race streaming ${binding}`);
    const streams = await Promise.all(Array.from({ length: N }, () => streamAll(slow.ep, binding, m)));
    const ids = new Set<string>();
    for (const s of streams) {
      if (s.kind !== 'events') throw new Error(`stream refused: ${JSON.stringify(s.error)}`);
      expect(s.frames.every((f) => 'event' in f)).toBe(true);
      const labels = eventLabels(s.events);
      expect(labels[0]).toMatch(/^task:/);
      expect(labels.at(-1)).toMatch(/^(status|task):TASK_STATE_COMPLETED$/);
      for (const ev of s.events) ids.add(taskIdOf(ev) ?? 'none');
    }
    expect(ids.size).toBe(1);
    expect(executionsOf(slow, new Set([m.messageId]))).toBe(1);
  });

  it('all three modes mixed: one execution, every answer names the same task', async () => {
    const m = keyedMessage(`race mixed ${binding}`);
    const ids = await Promise.all(
      Array.from({ length: N }, async (_, i) => {
        if (i % 3 === 0) return taskOf(await send(slow.ep, binding, m)).id;
        if (i % 3 === 1) return taskOf(await send(slow.ep, binding, m, { returnImmediately: true })).id;
        const s = await streamAll(slow.ep, binding, m);
        if (s.kind !== 'events') throw new Error(JSON.stringify(s.error));
        return taskIdOf(s.events[0]!);
      }),
    );
    expect(new Set(ids).size).toBe(1);
    await waitCompleted(slow, binding, ids[0]!);
    expect(executionsOf(slow, new Set([m.messageId]))).toBe(1);
  });
});

describe.each(BINDINGS)(
  '%s: 100 concurrent sends sharing a key under different messageIds',
  (binding: Binding) => {
    for (const streaming of [false, true]) {
      it(`${streaming ? 'streaming' : 'blocking'}: exactly one execution, the other 99 refused with IDEMPOTENCY_KEY_REUSED`, async () => {
        const key = freshKey();
        const messages: Message[] = Array.from({ length: N }, () => keyedMessage(`same key ${binding}`, key));
        const results = await Promise.all(
          messages.map(async (m) => {
            if (!streaming) return send(slow.ep, binding, m);
            const s = await streamAll(slow.ep, binding, m);
            return s.kind === 'error'
              ? ({ kind: 'error', error: s.error } as const)
              : ({ kind: 'stream', taskId: taskIdOf(s.events[0]!) } as const);
          }),
        );
        const winners = results.flatMap((r, i) => (r.kind === 'task' || r.kind === 'stream' ? [i] : []));
        expect(winners).toHaveLength(1);
        const winner = messages[winners[0]!]!;
        const refused = results.flatMap((r) => (r.kind === 'error' ? [r.error] : []));
        expect(refused).toHaveLength(N - 1);
        for (const e of refused) {
          expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.keyReused));
          expect(e.metadata?.heldByMessageId).toBe(winner.messageId);
        }
        const all = new Set(messages.map((m) => m.messageId));
        await until(() => executionsOf(slow, all) >= 1, 5000, 'the winner ran');
        const winning = results[winners[0]!]!;
        const taskId =
          winning.kind === 'task' ? winning.task.id : winning.kind === 'stream' ? winning.taskId : undefined;
        await waitCompleted(slow, binding, taskId!);
        expect(executionsOf(slow, all)).toBe(1);
      });
    }
  },
);

describe.each(BINDINGS)('%s: a continuation retried 20 times concurrently runs once', (binding: Binding) => {
  it('blocking: every answer names the task, COMPLETED; one continuation execution', async () => {
    const first = taskOf(await send(ask.ep, binding, userMessage('write a haiku')));
    expect(first.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const answer = userMessage('Autumn', { taskId: first.id });
    const answers = await Promise.all(
      Array.from({ length: CONTINUATIONS }, () => send(ask.ep, binding, answer)),
    );
    for (const a of answers) {
      const t = taskOf(a);
      expect(t.id).toBe(first.id);
      expect(t.status.state).toBe('TASK_STATE_COMPLETED');
    }
    expect(executionsOf(ask, new Set([answer.messageId]))).toBe(1);
    expect(readEffects(ask.log).filter((e) => e.taskId === first.id)).toHaveLength(2);
  });

  it('streaming: every stream follows the one task to COMPLETED; one continuation execution', async () => {
    const first = taskOf(await send(ask.ep, binding, userMessage('write a limerick')));
    const answer = userMessage('Nantucket', { taskId: first.id });
    const streams = await Promise.all(
      Array.from({ length: CONTINUATIONS }, () => streamAll(ask.ep, binding, answer)),
    );
    for (const s of streams) {
      if (s.kind !== 'events') throw new Error(`stream refused: ${JSON.stringify(s.error)}`);
      expect(s.events.every((ev) => taskIdOf(ev) === first.id)).toBe(true);
      expect(eventLabels(s.events).at(-1)).toMatch(/^(status|task):TASK_STATE_COMPLETED$/);
    }
    expect(executionsOf(ask, new Set([answer.messageId]))).toBe(1);
  });

  it('keyed continuation, mixed modes: one continuation execution', async () => {
    const first = taskOf(await send(ask.ep, binding, userMessage('write a sonnet')));
    const answer = keyedMessage('Verona', freshKey(), { taskId: first.id });
    const ids = await Promise.all(
      Array.from({ length: CONTINUATIONS }, async (_, i) => {
        if (i % 2 === 0) return taskOf(await send(ask.ep, binding, answer)).id;
        const s = await streamAll(ask.ep, binding, answer);
        if (s.kind !== 'events') throw new Error(JSON.stringify(s.error));
        return taskIdOf(s.events[0]!);
      }),
    );
    expect(new Set(ids)).toEqual(new Set([first.id]));
    expect(executionsOf(ask, new Set([answer.messageId]))).toBe(1);
  });
});
