/**
 * The retry rule for v0.3 agents (docs/semantics.md §7, ADR 0020, ADR 0104): the card is the evidence. A keyed
 * send to a v0.3 agent whose card advertises the idempotency extension is resent after its answer was lost, and
 * the agent runs once; to a v0.3 agent whose card does not, it is never blindly resent (OutcomeUnknownError, the
 * agent ran once). The answer is lost for real: a proxy on 127.0.0.1 forwards the request and cuts the client's
 * connection as the response starts. Our server with `compat: ['0.3']` is reached through a card offering only
 * a 0.3 interface, so every call is v0.3 (ADR 0102).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient, OutcomeUnknownError, fetchAgentCard, cardUrlOf } from '../../../src/client/index.js';
import type { A2AClientOptions } from '../../../src/client/index.js';
import type { AgentCard } from '../../../src/protocol/agent-card.js';
import type { StreamResponse } from '../../../src/protocol/model.js';
import { IDEMPOTENCY_EXTENSION_URI, IDEMPOTENCY_METADATA_KEY } from '../../../src/idempotency/index.js';
import { TaskNotCancelableError, TaskNotFoundError } from '../../../src/protocol/errors.js';
import { createA2AServer } from '../../../src/server/index.js';
import { serveNode } from '../../../src/server/node/index.js';
import { startJsAgent } from '../harness/a2a-js-server.js';
import type { JsAgent } from '../harness/a2a-js-server.js';
import { FaultProxy, isCall } from '../harness/fault-proxy.js';
import type { SeenRequest } from '../harness/fault-proxy.js';
import { closeNode } from '../../helpers/close-node.js';

const fast: A2AClientOptions = {
  retry: { maxAttempts: 4, backoff: { initialMs: 20, maxMs: 100 } },
  attemptTimeoutMs: 5_000,
};

const v03Sends = isCall('message/send');
const sendOf = (text: string) => (r: SeenRequest) => v03Sends(r) && r.body.includes(text);

/** The card with its interfaces replaced by one JSON-RPC interface at 0.3, through `proxy`. */
function onlyV03(card: AgentCard, proxy: FaultProxy): AgentCard {
  const rpc = card.supportedInterfaces.find((i) => i.protocolBinding === 'JSONRPC')!;
  return {
    ...card,
    supportedInterfaces: [{ url: proxy.via(rpc.url), protocolBinding: 'JSONRPC', protocolVersion: '0.3' }],
  };
}

describe('a v0.3 agent whose card does not advertise the idempotency extension (@a2a-js/sdk)', () => {
  let agent: JsAgent;
  let proxy: FaultProxy;
  beforeAll(async () => {
    agent = await startJsAgent({ present: 'v03-card' });
    proxy = await FaultProxy.start(agent.url);
  });
  afterAll(async () => {
    await proxy.close();
    await agent.close();
  });

  it('a send whose answer was lost is never resent: OutcomeUnknownError, the agent ran once', async () => {
    const card = await fetchAgentCard(cardUrlOf(proxy.url));
    const client = A2AClient.fromCard(card, { ...fast, cardUrl: cardUrlOf(proxy.url) });
    expect(client.peerHonoursKeys).toBe(false);
    expect(client.endpoint.url).toBe(agent.jsonRpcUrl);
    const viaProxy = A2AClient.fromCard(
      {
        ...card,
        supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, url: proxy.via(i.url) })),
      },
      fast,
    );
    const before = agent.executions.length;
    proxy.inject({ kind: 'drop-response' }, sendOf('lost v03 js'));
    const err = await viaProxy.send('lost v03 js').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect((err as OutcomeUnknownError).peerHonoursKeys).toBe(false);
    expect(proxy.count(sendOf('lost v03 js'))).toBe(1);
    expect(agent.executions.length).toBe(before + 1);
  });
});

describe('our server with compat on, reached as a v0.3 agent whose card advertises the extension', () => {
  let runs = 0;
  let http: Awaited<ReturnType<typeof serveNode>>;
  let proxy: FaultProxy;
  let client: A2AClient;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  beforeAll(async () => {
    const server = createA2AServer({
      agent: {
        execute: async (ctx) => {
          runs++;
          if (ctx.userText.startsWith('slow')) await sleep(400);
          await ctx.complete(`echo: ${ctx.userText}`);
        },
      },
      card: { name: 'echo', description: 'Echoes', capabilities: { streaming: true } },
      compat: ['0.3'],
    });
    http = await serveNode(server.fetch, { host: '127.0.0.1', port: 0 });
    proxy = await FaultProxy.start(http.url);
    const card = await fetchAgentCard(cardUrlOf(http.url));
    client = A2AClient.fromCard(onlyV03(card, proxy), fast);
  });
  afterAll(async () => {
    await proxy.close();
    await closeNode(http);
  });

  it('advertises keys, so the client keys its sends', () => {
    expect(client.card?.capabilities.extensions?.map((e) => e.uri)).toContain(IDEMPOTENCY_EXTENSION_URI);
    expect(client.peerHonoursKeys).toBe(true);
  });

  it('a keyed send whose answer was lost is resent with its key: one task, the agent ran once', async () => {
    const before = runs;
    proxy.reset();
    proxy.inject({ kind: 'drop-response' }, sendOf('lost v03 once'));
    const res = await client.send('lost v03 once');
    if (!('task' in res)) throw new Error('expected a task');
    expect(res.task.status.state).toBe('TASK_STATE_COMPLETED');
    const sent = proxy.requests.filter(sendOf('lost v03 once'));
    expect(sent.length).toBe(2);
    // Both attempts are v0.3 `message/send` with the same key and message id.
    const bodies = sent.map((r) => JSON.parse(r.body) as { params: { message: Record<string, unknown> } });
    expect(bodies[0]!.params.message).toEqual(bodies[1]!.params.message);
    expect(bodies[0]!.params.message.kind).toBe('message');
    const metadata = bodies[0]!.params.message.metadata as Record<string, unknown>;
    expect(typeof metadata[IDEMPOTENCY_METADATA_KEY]).toBe('string');
    expect(runs - before).toBe(1);
  });

  it('stream, get, cancel and the v0.3 error codes, all in v0.3', async () => {
    proxy.reset();
    const events: StreamResponse[] = [];
    for await (const ev of client.sendStream('streamed')) events.push(ev);
    const last = events.at(-1)!;
    expect('statusUpdate' in last && last.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    const taskId = 'statusUpdate' in last ? last.statusUpdate.taskId : '';
    expect((await client.getTask(taskId)).status.state).toBe('TASK_STATE_COMPLETED');
    await expect(client.cancelTask(taskId)).rejects.toBeInstanceOf(TaskNotCancelableError);
    await expect(client.getTask('no-such-task')).rejects.toBeInstanceOf(TaskNotFoundError);
    const running = await client.send('slow one', { configuration: { returnImmediately: true } });
    if (!('task' in running)) throw new Error('expected a task');
    const sub: StreamResponse[] = [];
    for await (const ev of client.subscribe(running.task.id)) sub.push(ev);
    const end = sub.at(-1);
    expect(end && 'statusUpdate' in end && end.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    const methods = proxy.requests.map((r) => (JSON.parse(r.body) as { method: string }).method);
    expect(new Set(methods)).toEqual(
      new Set(['message/stream', 'tasks/get', 'tasks/cancel', 'message/send', 'tasks/resubscribe']),
    );
  });
});
