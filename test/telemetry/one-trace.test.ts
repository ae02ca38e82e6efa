/**
 * One trace across a delegation tree (ADR 0092): three real a2a-once servers in this process, coordinator ->
 * middle -> leaf through `ctx.delegate`, each behind a fault proxy that loses the first SendMessage answer, with
 * OpenTelemetry registered globally and an in-memory exporter. Every span is in one trace; the tree runs client
 * call -> attempt -> server span -> turn -> step -> client call -> ...; each hop's retry is a second attempt,
 * linked to the first, whose server span says `replayed` and links to the span that created the task; no
 * attribute holds an idempotency key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { A2AClient, cardUrlOf, fetchAgentCard } from '../../src/client/index.js';
import { keyHash, keyOf } from '../../src/idempotency/index.js';
import { openTelemetry } from '../../src/otel/index.js';
import type { AgentContext } from '../../src/server/agent-executor.js';
import { createA2AServer, type A2AServer } from '../../src/server/create-server.js';
import { advertiseDelegation, lazyPeer } from '../../src/server/delegation/index.js';
import { serveNode, type NodeServerHandle } from '../../src/server/node/index.js';
import { silentLogger } from '../../src/server/observability/logger.js';
import { MemoryTaskStore } from '../../src/store/memory/index.js';
import { FaultProxy, isCall } from '../client/harness/fault-proxy.js';
import { ancestry, byId, KIND, parentOf, registerOtel, until, type RegisteredOtel } from './otel-harness.js';
import { closeNode } from '../helpers/close-node.js';

const telemetry = openTelemetry();
const RETRY = { retry: { maxAttempts: 5, backoff: { initialMs: 20, maxMs: 100 } }, telemetry } as const;

interface Agent {
  readonly server: A2AServer;
  readonly node: NodeServerHandle;
  readonly proxy: FaultProxy;
  /** The idempotency keys of the messages its turns ran. */
  readonly keys: string[];
}

let otel: RegisteredOtel;
const agents: Agent[] = [];

/** A client of `agent` through its proxy, with telemetry. */
async function clientOf(agent: Agent): Promise<A2AClient> {
  const card = await fetchAgentCard(cardUrlOf(agent.node.url));
  const proxied = {
    ...card,
    supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, url: agent.proxy.via(i.url) })),
  };
  return A2AClient.fromCard(proxied, { ...RETRY, cardUrl: cardUrlOf(agent.proxy.url) });
}

/** Starts an agent named `name` that delegates to `child` (when given) and completes. */
async function startAgent(name: string, child: Agent | undefined): Promise<Agent> {
  const keys: string[] = [];
  const peer = child === undefined ? undefined : lazyPeer(() => clientOf(child));
  const server = createA2AServer({
    store: new MemoryTaskStore(),
    card: { name, description: `${name} of the tracing test`, capabilities: advertiseDelegation({}) },
    retention: false,
    logger: silentLogger,
    telemetry,
    agent: {
      async execute(ctx: AgentContext) {
        const key = keyOf(ctx.message);
        if (key !== undefined) keys.push(key);
        let below = '';
        if (peer !== undefined) {
          const outcome = await (
            await ctx.delegate(peer, `work for the one below ${name}`, { pollMs: 20 })
          ).outcome();
          below = ` after ${outcome.status}`;
        }
        await ctx.artifact({ artifactId: 'out', parts: [{ text: `${name} done${below}` }] });
      },
    },
  });
  const node = await serveNode(server.fetch);
  const proxy = await FaultProxy.start(node.url);
  // The first answer to a send is lost on every hop: each sender retries with the same key.
  proxy.inject({ kind: 'drop-response' }, isCall('SendMessage'), 1);
  const agent = { server, node, proxy, keys };
  agents.push(agent);
  return agent;
}

const attr = (s: ReadableSpan, name: string) => s.attributes[name];
const agentOf = (s: ReadableSpan) => attr(s, 'gen_ai.agent.name');

let spans: ReadableSpan[];
let answerState: string | undefined;

beforeAll(async () => {
  otel = registerOtel();
  const leaf = await startAgent('leaf', undefined);
  const middle = await startAgent('middle', leaf);
  const coordinator = await startAgent('coordinator', middle);
  const client = await clientOf(coordinator);
  otel.exporter.reset(); // the card fetches above are not part of the tree
  const answer = await client.send('coordinate');
  answerState = 'task' in answer ? answer.task.status.state : undefined;
  // Turn spans end after the answers that started them; wait for the three.
  await until(() => otel.spans().filter((s) => s.name === 'a2a_once.agent.turn').length === 3);
  spans = otel.spans();
}, 60_000);

afterAll(async () => {
  for (const a of agents) {
    await a.proxy.close();
    await closeNode(a.node);
    await a.server.close();
  }
  await otel.unregister();
});

describe('one trace across coordinator -> middle -> leaf, with a lost answer on every hop', () => {
  it('completes, every hop having resent its send once', () => {
    expect(answerState).toBe('TASK_STATE_COMPLETED');
    for (const a of agents) expect(a.proxy.count(isCall('SendMessage'))).toBe(2);
  });

  it('puts every span in one trace, with a single root: the first client call', () => {
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    const roots = spans.filter((s) => parentOf(s) === undefined);
    expect(roots.map((s) => [s.name, s.kind])).toEqual([['SendMessage', KIND.CLIENT]]);
  });

  it('has, on every server, a claimed SERVER span and a replayed one linked to it', () => {
    for (const name of ['coordinator', 'middle', 'leaf']) {
      const sends = spans.filter(
        (s) => s.kind === KIND.SERVER && s.name === 'SendMessage' && agentOf(s) === name,
      );
      expect(sends.map((s) => attr(s, 'a2a_once.admission.outcome')).sort()).toEqual(['claimed', 'replayed']);
      const claimed = sends.find((s) => attr(s, 'a2a_once.admission.outcome') === 'claimed')!;
      const replayed = sends.find((s) => attr(s, 'a2a_once.admission.outcome') === 'replayed')!;
      expect(attr(claimed, 'a2a_once.agent.ran')).toBe(true);
      expect(attr(replayed, 'a2a_once.agent.ran')).toBe(false);
      expect(attr(replayed, 'a2a.task.id')).toBe(attr(claimed, 'a2a.task.id'));
      expect(replayed.links.map((l) => l.context.spanId)).toEqual([claimed.spanContext().spanId]);
      // The retry is a second attempt of the same client call, linked to the first attempt.
      const [retry, first] = [byId(spans, parentOf(replayed))!, byId(spans, parentOf(claimed))!];
      expect([retry.name, retry.kind, attr(retry, 'a2a_once.attempt')]).toEqual([
        'a2a_once.attempt',
        KIND.CLIENT,
        2,
      ]);
      expect([first.name, attr(first, 'a2a_once.attempt')]).toEqual(['a2a_once.attempt', 1]);
      expect(retry.links.map((l) => l.context.spanId)).toEqual([first.spanContext().spanId]);
      expect(parentOf(retry)).toBe(parentOf(first));
      expect(attr(retry, 'a2a_once.admission.outcome')).toBe('replayed');
      const call = byId(spans, parentOf(first))!;
      expect([call.name, call.kind, attr(call, 'a2a_once.attempts')]).toEqual([
        'SendMessage',
        KIND.CLIENT,
        2,
      ]);
    }
  });

  it('runs each turn under the server span that admitted it, and each child send under the parent turn', () => {
    const turnOf = (name: string) =>
      spans.find(
        (s) =>
          s.name === 'a2a_once.agent.turn' &&
          byId(spans, parentOf(s)) !== undefined &&
          agentOf(byId(spans, parentOf(s))!) === name,
      )!;
    const claimedOf = (name: string) =>
      spans.find(
        (s) =>
          s.kind === KIND.SERVER &&
          agentOf(s) === name &&
          attr(s, 'a2a_once.admission.outcome') === 'claimed',
      )!;
    for (const name of ['coordinator', 'middle', 'leaf']) {
      const turn = turnOf(name);
      expect(turn).toBeDefined();
      expect(parentOf(turn)).toBe(claimedOf(name).spanContext().spanId);
      expect(attr(turn, 'a2a.task.id')).toBe(attr(claimedOf(name), 'a2a.task.id'));
      expect(attr(turn, 'a2a.task.state')).toBe('TASK_STATE_COMPLETED');
    }
    // client call -> attempt -> SERVER(middle) -> ... -> turn(coordinator): the child send is inside the turn,
    // in the step that records the child's task id.
    for (const [parent, child] of [
      ['coordinator', 'middle'],
      ['middle', 'leaf'],
    ] as const) {
      const up = ancestry(spans, claimedOf(child));
      const names = up.map((s) => s.name);
      expect(names.slice(0, 5)).toEqual([
        'a2a_once.attempt',
        'SendMessage',
        'a2a_once.step',
        'a2a_once.delegation',
        'a2a_once.agent.turn',
      ]);
      expect(up[2]!.attributes['a2a_once.step.name']).toMatch(/\.child$/);
      expect(up[2]!.attributes['a2a_once.step.outcome']).toBe('recorded');
      // The delegation names its child and how it ended.
      expect(up[3]!.attributes).toMatchObject({
        'a2a_once.delegation.child_task_id': attr(claimedOf(child), 'a2a.task.id'),
        'a2a_once.delegation.outcome': 'completed',
      });
      expect(up[4]!.spanContext().spanId).toBe(turnOf(parent).spanContext().spanId);
    }
  });

  it('names and attributes the spans as the A2A conventions say', () => {
    const server = spans.find((s) => s.kind === KIND.SERVER && agentOf(s) === 'leaf')!;
    expect(server.attributes).toMatchObject({
      'a2a.method.name': 'SendMessage',
      'a2a.protocol.version': '1.0',
      'a2a.task.state': 'TASK_STATE_COMPLETED',
    });
    expect(typeof attr(server, 'a2a.message.id')).toBe('string');
    expect(typeof attr(server, 'gen_ai.conversation.id')).toBe('string');
    expect(typeof attr(server, 'a2a_once.fence')).toBe('number');
  });

  it('never puts a key in an attribute; its short hash names it', () => {
    const keys = agents.flatMap((a) => a.keys);
    expect(keys.length).toBeGreaterThanOrEqual(3);
    const values = spans.flatMap((s) => Object.values(s.attributes).map(String));
    for (const key of keys) for (const v of values) expect(v).not.toContain(key);
    const hashes = new Set(spans.map((s) => attr(s, 'a2a_once.key_hash')).filter((h) => h !== undefined));
    for (const key of keys) expect(hashes).toContain(keyHash(key));
  });
});
