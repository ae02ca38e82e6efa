/**
 * The card fetch has a CLIENT span of its own (ADR 0092): named `a2a_once.agent_card.fetch`, with the card's URL
 * and the agent's name, the parent of the card request's server-side trace context; a fetch that fails says why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient, cardUrlOf } from '../../src/client/index.js';
import { openTelemetry } from '../../src/otel/index.js';
import { createA2AServer } from '../../src/server/create-server.js';
import { serveNode, type NodeServerHandle } from '../../src/server/node/index.js';
import { silentLogger } from '../../src/server/observability/logger.js';
import { KIND, registerOtel, type RegisteredOtel } from './otel-harness.js';
import { closeNode } from '../helpers/close-node.js';

const telemetry = openTelemetry();
let otel: RegisteredOtel;
let node: NodeServerHandle;
const seen: (string | null)[] = [];

beforeAll(async () => {
  otel = registerOtel();
  const server = createA2AServer({
    agent: { execute: (ctx) => ctx.complete('ok') },
    card: { name: 'carded', description: 'has a card' },
    retention: false,
    logger: silentLogger,
  });
  node = await serveNode((req) => {
    if (new URL(req.url).pathname.endsWith('agent-card.json')) seen.push(req.headers.get('traceparent'));
    return server.fetch(req);
  });
});
afterAll(async () => {
  await closeNode(node);
  await otel.unregister();
});

describe('the card fetch', () => {
  it('is a CLIENT span with the URL and the agent name, whose context the request carries', async () => {
    otel.exporter.reset();
    await A2AClient.connect(node.url, { telemetry });
    const [span] = otel.spans().filter((s) => s.name === 'a2a_once.agent_card.fetch');
    expect(span?.kind).toBe(KIND.CLIENT);
    expect(span?.attributes['url.full']).toBe(cardUrlOf(node.url));
    expect(span?.attributes['gen_ai.agent.name']).toBe('carded');
    const sent = seen.at(-1);
    expect(sent?.split('-')[1]).toBe(span?.spanContext().traceId);
    expect(sent?.split('-')[2]).toBe(span?.spanContext().spanId);
  });

  it('says error.type when there is no card', async () => {
    otel.exporter.reset();
    const err = await A2AClient.fromCardUrl(`${node.url}/nowhere.json`, { telemetry, retry: false }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    const [span] = otel.spans().filter((s) => s.name === 'a2a_once.agent_card.fetch');
    expect(span?.attributes['error.type']).toBe('NO_AGENT_CARD');
    expect(span?.status.code).toBe(2); // ERROR
  });
});
