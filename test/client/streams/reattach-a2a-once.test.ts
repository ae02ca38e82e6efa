/**
 * A stream cut after any event and re-attached ends with exactly the task's content, when the agent's chunks
 * repeat (docs/semantics.md §7, ADR 0021): re-attachment relies on the snapshot's position, never on comparing
 * content, so a live append equal to the tail already shown is shown. Against a real a2a-once server through a
 * loopback proxy that cuts the stream after event i, for every i, by keyed resend and by subscription, in both
 * bindings; the caller's folded view is compared with GetTask. And a stream whose task was seen and whose
 * re-attachments run out ends with `OutcomeUnknownError` naming the task, never a bare transport error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient, OutcomeUnknownError, cardUrlOf, fetchAgentCard } from '../../../src/client/index.js';
import type { AgentCard } from '../../../src/protocol/agent-card.js';
import type { Part, StreamResponse } from '../../../src/protocol/model.js';
import type { TaskState } from '../../../src/protocol/task-state.js';
import { mintKey } from '../../../src/idempotency/index.js';
import type { AgentContext, AgentExecutor } from '../../../src/server/agent-executor.js';
import { createA2AServer } from '../../../src/server/create-server.js';
import type { A2AServer } from '../../../src/server/create-server.js';
import { serveNode } from '../../../src/server/node/index.js';
import type { NodeServerHandle } from '../../../src/server/node/index.js';
import { MemoryTaskStore } from '../../../src/store/memory/index.js';
import { FaultProxy, isCall } from '../harness/fault-proxy.js';
import type { SeenRequest } from '../harness/fault-proxy.js';
import { closeNode } from '../../helpers/close-node.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Tokens that repeat: the same chunk six times, a newline, the same chunk again; the same WORKING twice. */
const CHUNKS = ['x', 'x', 'x', 'x', 'x', 'x', '\n', 'x'];

/** Held tasks (text `hold`) wait here until the test lets them finish. */
const held: (() => void)[] = [];

const repeatingAgent: AgentExecutor = {
  async execute(ctx: AgentContext): Promise<void> {
    if (ctx.userText === 'big') {
      await ctx.working();
      await ctx.flush();
      await sleep(30);
      await ctx.artifact({ artifactId: 'out', parts: [{ text: 'y'.repeat(300_000) }] });
      await ctx.complete();
      return;
    }
    if (ctx.userText === 'hold') {
      await ctx.working();
      await new Promise<void>((resolve) => held.push(resolve));
      await ctx.complete();
      return;
    }
    await ctx.working();
    await ctx.working();
    for (let i = 0; i < CHUNKS.length; i++) {
      await sleep(15);
      await ctx.artifact({ artifactId: 'out', parts: [{ text: CHUNKS[i]! }] }, { append: i > 0 });
      await ctx.flush();
    }
    await ctx.working();
    await sleep(15);
    await ctx.complete();
  },
};

interface Folded {
  state: TaskState | undefined;
  text: string;
  workingShown: number;
}

/** What a caller reconstructs from what it was shown. */
function fold(events: readonly StreamResponse[]): Folded {
  let state: TaskState | undefined;
  let parts: Part[] = [];
  let workingShown = 0;
  for (const ev of events) {
    if ('task' in ev) {
      state = ev.task.status.state;
      parts = [...(ev.task.artifacts?.find((a) => a.artifactId === 'out')?.parts ?? [])];
    } else if ('statusUpdate' in ev) {
      state = ev.statusUpdate.status.state;
      if (state === 'TASK_STATE_WORKING') workingShown++;
    } else if ('artifactUpdate' in ev) {
      const u = ev.artifactUpdate;
      parts = u.append === true ? [...parts, ...u.artifact.parts] : [...u.artifact.parts];
    }
  }
  return { state, text: parts.map((p) => ('text' in p ? p.text : '?')).join(''), workingShown };
}

let server: A2AServer;
let http: NodeServerHandle;
let proxy: FaultProxy;
let card: AgentCard;

function client(binding: 'JSONRPC' | 'HTTP+JSON', keys: 'auto' | 'off', maxAttempts = 6): A2AClient {
  const proxied = {
    ...card,
    supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, url: proxy.via(i.url) })),
  };
  return A2AClient.fromCard(proxied, {
    retry: { maxAttempts, backoff: { initialMs: 10, maxMs: 40 } },
    attemptTimeoutMs: 10_000,
    preferredBindings: [binding],
    cardUrl: cardUrlOf(proxy.url),
    keys,
  });
}

function streamsOf(messageId: string): (r: SeenRequest) => boolean {
  const call = isCall('SendStreamingMessage');
  return (r) => call(r) && r.body.includes(messageId);
}

async function run(
  c: A2AClient,
  cutAfter: number | undefined,
): Promise<{ events: StreamResponse[]; taskId: string; streams: number }> {
  const messageId = `rc-${mintKey()}`;
  if (cutAfter !== undefined)
    proxy.inject({ kind: 'cut-stream', afterEvents: cutAfter }, streamsOf(messageId));
  const events: StreamResponse[] = [];
  for await (const ev of c.sendStream({ messageId, role: 'ROLE_USER', parts: [{ text: 'go' }] }))
    events.push(ev);
  const first = events[0];
  const taskId =
    first !== undefined && 'task' in first
      ? first.task.id
      : (events.find((e) => 'statusUpdate' in e) as { statusUpdate: { taskId: string } }).statusUpdate.taskId;
  return { events, taskId, streams: proxy.count(streamsOf(messageId)) };
}

beforeAll(async () => {
  server = createA2AServer({
    agent: repeatingAgent,
    card: { name: 'repeating', description: 'repeats its chunks', capabilities: { streaming: true } },
    store: new MemoryTaskStore(),
  });
  http = await serveNode(server.fetch, { host: '127.0.0.1', port: 0 });
  proxy = await FaultProxy.start(http.url);
  card = await fetchAgentCard(cardUrlOf(http.url));
});

afterAll(async () => {
  for (const release of held.splice(0)) release();
  await proxy?.close();
  if (http) await closeNode(http);
  await server?.close();
});

describe.each([
  ['JSONRPC', 'auto', 'keyed resend'],
  ['HTTP+JSON', 'auto', 'keyed resend'],
  ['JSONRPC', 'off', 'subscription'],
  ['HTTP+JSON', 'off', 'subscription'],
] as const)('a stream of repeating chunks over %s, keys %s (re-attached by %s)', (binding, keys, _how) => {
  it('uncut, shows every event: the repeated WORKING status and every identical chunk', async () => {
    const c = client(binding, keys);
    const { events, taskId, streams } = await run(c, undefined);
    expect(streams).toBe(1);
    const task = await c.getTask(taskId);
    const truth = (task.artifacts?.[0]?.parts ?? []).map((p) => ('text' in p ? p.text : '?')).join('');
    expect(truth).toBe(CHUNKS.join(''));
    const seen = fold(events);
    expect(seen).toEqual({ state: 'TASK_STATE_COMPLETED', text: truth, workingShown: 3 });
  });

  it('cut after each event index in turn and re-attached, ends with exactly the task content', async () => {
    const c = client(binding, keys);
    const uncut = await run(c, undefined);
    const total = uncut.events.length;
    expect(total).toBeGreaterThan(CHUNKS.length);
    for (let cutAfter = 1; cutAfter < total; cutAfter++) {
      const { events, taskId } = await run(c, cutAfter);
      const task = await c.getTask(taskId);
      const truth = (task.artifacts?.[0]?.parts ?? []).map((p) => ('text' in p ? p.text : '?')).join('');
      const seen = fold(events);
      expect({ cutAfter, state: seen.state, text: seen.text }).toEqual({
        cutAfter,
        state: task.status.state,
        text: truth,
      });
      expect(truth).toBe(CHUNKS.join(''));
    }
  }, 120_000);
});

describe.each([
  ['JSONRPC', 'auto'],
  ['HTTP+JSON', 'auto'],
  ['JSONRPC', 'off'],
  ['HTTP+JSON', 'off'],
] as const)('a stream over %s, keys %s, cut at every re-attachment', (binding, keys) => {
  it('ends with OutcomeUnknownError naming the task once its re-attachments run out', async () => {
    const c = client(binding, keys, 3);
    const messageId = `ex-${mintKey()}`;
    const ours = (r: SeenRequest): boolean => isCall('SendStreamingMessage')(r) && r.body.includes(messageId);
    proxy.inject({ kind: 'cut-stream', afterEvents: 1 }, ours, 10);
    // A re-attachment resumes after the last event shown (ADR 0125): on a held task it has nothing to send
    // until the task moves, so its cut comes as soon as it opens.
    proxy.inject({ kind: 'cut-stream', afterEvents: 0 }, isCall('SubscribeToTask'), 10);
    const shown: StreamResponse[] = [];
    const err = await (async () => {
      for await (const ev of c.sendStream({ messageId, role: 'ROLE_USER', parts: [{ text: 'hold' }] }))
        shown.push(ev);
    })().then(
      () => undefined,
      (e: unknown) => e,
    );
    proxy.reset();
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    const taskId = shown.length > 0 && 'task' in shown[0]! ? shown[0].task.id : undefined;
    expect(taskId).toBeDefined();
    expect((err as OutcomeUnknownError).taskId).toBe(taskId);
    expect((err as OutcomeUnknownError).messageId).toBe(messageId);
    expect((err as OutcomeUnknownError).peerHonoursKeys).toBe(true);
    // The task is still there, running: the error says its outcome is unknown, not that it failed.
    expect((await c.getTask(taskId!)).status.state).toBe('TASK_STATE_WORKING');
    for (const release of held.splice(0)) release();
  });
});

describe.each(['JSONRPC', 'HTTP+JSON'] as const)(
  'a stream over %s with an event past the read limit',
  (binding) => {
    it('ends with OutcomeUnknownError naming the task once the task was named (the send ran)', async () => {
      const c = client(binding, 'auto', 3);
      const messageId = `big-${mintKey()}`;
      const shown: StreamResponse[] = [];
      const err = await (async () => {
        for await (const ev of c.sendStream(
          { messageId, role: 'ROLE_USER', parts: [{ text: 'big' }] },
          { maxResponseBytes: 64 * 1024 },
        ))
          shown.push(ev);
      })().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(OutcomeUnknownError);
      const taskId = 'task' in shown[0]! ? shown[0].task.id : undefined;
      expect((err as OutcomeUnknownError).taskId).toBe(taskId);
      expect((err as OutcomeUnknownError).cause).toMatchObject({ name: 'SseEventTooLargeError' });
      // The task ran to its end; a read with a larger limit gets it.
      await until(async () => (await c.getTask(taskId!)).status.state === 'TASK_STATE_COMPLETED');
    });
  },
);

async function until(f: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(20);
  }
}
