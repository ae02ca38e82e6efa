/**
 * A delegating agent's peer client built without `telemetry` still continues the trace (ADR 0091): the server
 * hands the child send the active trace context as headers, so the child's SERVER span is a child of the parent's
 * delegation span, in the parent's trace. Two real servers over HTTP, OpenTelemetry registered globally.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { A2AClient } from '../../src/client/index.js';
import { openTelemetry } from '../../src/otel/index.js';
import { createA2AServer, type A2AServer } from '../../src/server/create-server.js';
import { advertiseDelegation, lazyPeer } from '../../src/server/delegation/index.js';
import { serveNode, type NodeServerHandle } from '../../src/server/node/index.js';
import { silentLogger } from '../../src/server/observability/logger.js';
import { MemoryTaskStore } from '../../src/store/memory/index.js';
import { ancestry, KIND, registerOtel, until, type RegisteredOtel } from './otel-harness.js';
import { closeNode } from '../helpers/close-node.js';

const telemetry = openTelemetry();
let otel: RegisteredOtel;
const servers: { server: A2AServer; node: NodeServerHandle }[] = [];
let spans: ReadableSpan[];

async function start(name: string, agent: Parameters<typeof createA2AServer>[0]['agent']) {
  const server = createA2AServer({
    store: new MemoryTaskStore(),
    card: { name, description: name, capabilities: advertiseDelegation({}) },
    retention: false,
    logger: silentLogger,
    telemetry,
    agent,
  });
  const node = await serveNode(server.fetch);
  servers.push({ server, node });
  return node;
}

beforeAll(async () => {
  otel = registerOtel();
  const child = await start('child', { execute: (ctx) => ctx.complete('child done') });
  // The peer's client has no telemetry: it starts no span and injects nothing of its own.
  const peer = lazyPeer(() => A2AClient.connect(child.url));
  const parent = await start('parent', {
    async execute(ctx) {
      const outcome = await (await ctx.delegate(peer, 'below', { pollMs: 20 })).outcome();
      await ctx.complete(`parent done after ${outcome.status}`);
    },
  });
  const client = await A2AClient.connect(parent.url, { telemetry });
  otel.exporter.reset();
  await client.send('go');
  await until(() => otel.spans().filter((s) => s.name === 'a2a_once.agent.turn').length === 2);
  spans = otel.spans();
}, 30_000);

afterAll(async () => {
  for (const s of servers) {
    await closeNode(s.node);
    await s.server.close();
  }
  await otel.unregister();
});

describe('a child send through a peer client without telemetry', () => {
  it("puts the child's server span in the parent's trace, under the parent's delegation", () => {
    const childSend = spans.find(
      (s) =>
        s.kind === KIND.SERVER && s.name === 'SendMessage' && s.attributes['gen_ai.agent.name'] === 'child',
    );
    expect(childSend).toBeDefined();
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    const above = ancestry(spans, childSend!).map((s) => s.name);
    expect(above.slice(0, 2)).toEqual(['a2a_once.step', 'a2a_once.delegation']);
    expect(above).toContain('a2a_once.agent.turn');
    expect(above.at(-1)).toBe('SendMessage');
  });
});
