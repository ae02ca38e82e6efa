/**
 * A v0.3 call's SERVER span says the version the call was read in (`a2a.protocol.version` 0.3, ADR 0097), not the
 * header's v1.0 default, and names the method as v1.0 does: a mixed fleet counts its v0.3 traffic by that
 * attribute (docs/guides/v03-peers.md, "Migrating a mixed fleet").
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openTelemetry } from '../../src/otel/index.js';
import { createA2AServer } from '../../src/server/create-server.js';
import { serveNode, type NodeServerHandle } from '../../src/server/node/index.js';
import { silentLogger } from '../../src/server/observability/logger.js';
import { KIND, registerOtel, type RegisteredOtel } from './otel-harness.js';
import { closeNode } from '../helpers/close-node.js';

let otel: RegisteredOtel;
let node: NodeServerHandle;

beforeAll(async () => {
  otel = registerOtel();
  const server = createA2AServer({
    agent: { execute: (ctx) => ctx.complete('ok') },
    card: { name: 'mixed', description: 'serves v0.3 and v1.0' },
    compat: ['0.3'],
    telemetry: openTelemetry(),
    retention: false,
    logger: silentLogger,
  });
  node = await serveNode(server.fetch);
});
afterAll(async () => {
  await closeNode(node);
  await otel.unregister();
});

const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(node.url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

it('is 0.3 for a v0.3 method without a header and 1.0 for a v1.0 one', async () => {
  otel.exporter.reset();
  const parts = [{ kind: 'text', text: 'hi' }];
  const message = { kind: 'message', messageId: 'v03-span-1', role: 'user', parts };
  expect((await post({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message } })).status).toBe(
    200,
  );
  const v1 = { messageId: 'v1-span-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] };
  const v1Call = { jsonrpc: '2.0', id: 2, method: 'SendMessage', params: { message: v1 } };
  expect((await post(v1Call, { 'A2A-Version': '1.0' })).status).toBe(200);
  const servers = otel.spans().filter((s) => s.kind === KIND.SERVER && s.name === 'SendMessage');
  const versionOf = (id: string) =>
    servers.find((s) => s.attributes['a2a.message.id'] === id)?.attributes['a2a.protocol.version'];
  expect(versionOf('v03-span-1')).toBe('0.3');
  expect(versionOf('v1-span-1')).toBe('1.0');
});

it('is 0.3 for a v0.3 REST route without a header', async () => {
  otel.exporter.reset();
  const request = { messageId: 'v03-rest-span-1', role: 'ROLE_USER', content: [{ text: 'hi' }] };
  const res = await fetch(new URL('/v1/message:send', node.url), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ message: request }),
  });
  expect(res.status).toBe(200);
  const server = otel.spans().find((s) => s.kind === KIND.SERVER && s.name === 'SendMessage');
  expect(server?.attributes['a2a.protocol.version']).toBe('0.3');
});
