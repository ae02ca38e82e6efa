/**
 * The public agent card (A2A v1.0): `/.well-known/agent-card.json` with a JSONRPC and an HTTP+JSON
 * interface at protocolVersion 1.0, ETag / Last-Modified / Cache-Control, 304 revalidation; and the extended
 * card over both bindings.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { AgentCardSchema } from '../../../src/protocol/schemas/index.js';
import { parseAs } from '../../helpers/http.js';
import { builtinServer, rest, rpcOk } from './fixtures.js';

const CARD_URL = 'http://agent.example:8080/.well-known/agent-card.json';
const tck = builtinServer('tck');
const echo = builtinServer('echo');

afterAll(async () => {
  await Promise.all([tck.close(), echo.close()]);
});

describe('GET /.well-known/agent-card.json', () => {
  it('serves a valid v1.0 card with JSONRPC and HTTP+JSON interfaces at the serving origin', async () => {
    const res = await echo.fetch(new Request(CARD_URL));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const raw = (await res.json()) as Record<string, unknown>;
    const card = parseAs(AgentCardSchema, raw, 'agent card');
    const byBinding = new Map(card.supportedInterfaces.map((i) => [i.protocolBinding, i]));
    expect([...byBinding.keys()].sort()).toEqual(['HTTP+JSON', 'JSONRPC']);
    for (const i of card.supportedInterfaces) {
      expect(i.protocolVersion).toBe('1.0');
      expect(new URL(i.url).origin).toBe('http://agent.example:8080');
    }
    expect(new URL(byBinding.get('JSONRPC')!.url).pathname).toBe('/');
    expect(card.name).toBe('a2a-once echo');
    expect(card.capabilities.streaming).toBe(true);
    expect(card.defaultInputModes.length).toBeGreaterThan(0);
    expect(card.skills.length).toBeGreaterThan(0);
    // v0.3-only fields are gone (A2A v1.0).
    for (const stale of ['url', 'preferredTransport', 'additionalInterfaces', 'protocolVersion']) {
      expect(raw).not.toHaveProperty(stale);
    }
  });

  it('sends ETag, Last-Modified and Cache-Control max-age', async () => {
    const res = await echo.fetch(new Request(CARD_URL));
    await res.body?.cancel();
    expect(res.headers.get('etag')).toMatch(/^(W\/)?"[^"]+"$/);
    expect(Number.isNaN(Date.parse(res.headers.get('last-modified') ?? ''))).toBe(false);
    expect(res.headers.get('cache-control')).toMatch(/max-age=\d+/);
  });

  it('answers 304 with no body to a matching If-None-Match, 200 to a stale one', async () => {
    const first = await echo.fetch(new Request(CARD_URL));
    const body = await first.text();
    const etag = first.headers.get('etag')!;
    const again = await echo.fetch(new Request(CARD_URL, { headers: { 'If-None-Match': etag } }));
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    const stale = await echo.fetch(new Request(CARD_URL, { headers: { 'If-None-Match': 'W/"stale"' } }));
    expect(stale.status).toBe(200);
    expect(await stale.text()).toBe(body);
  });

  it('answers 304 to If-Modified-Since at or after Last-Modified', async () => {
    const first = await echo.fetch(new Request(CARD_URL));
    await first.body?.cancel();
    const lm = first.headers.get('last-modified')!;
    const res = await echo.fetch(new Request(CARD_URL, { headers: { 'If-Modified-Since': lm } }));
    expect(res.status).toBe(304);
  });

  it('the ETag is stable across requests for the same origin', async () => {
    const a = await echo.fetch(new Request(CARD_URL));
    const b = await echo.fetch(new Request(CARD_URL));
    await Promise.all([a.body?.cancel(), b.body?.cancel()]);
    expect(a.headers.get('etag')).toBe(b.headers.get('etag'));
  });

  it('is served without an A2A-Version header (discovery is not an RPC)', async () => {
    const res = await tck.fetch(new Request(CARD_URL));
    expect(res.status).toBe(200);
    const card = parseAs(AgentCardSchema, await res.json(), 'card');
    // Push delivery is not built: the card does not declare it.
    expect(card.capabilities).toMatchObject({
      streaming: true,
      pushNotifications: false,
      extendedAgentCard: true,
    });
  });
});

describe('extended card', () => {
  it('over JSON-RPC and REST is a valid AgentCard with the same interfaces as the public card', async () => {
    const pub = parseAs(AgentCardSchema, await (await tck.fetch(new Request(CARD_URL))).json(), 'card');
    const viaRpc = await rpcOk(tck, 'GetExtendedAgentCard', {}, AgentCardSchema);
    const res = await rest(tck, 'GET', '/extendedAgentCard');
    expect(res.status).toBe(200);
    const viaRest = parseAs(AgentCardSchema, await res.json(), 'extended card');
    for (const c of [viaRpc, viaRest]) {
      expect(c.skills.map((s) => s.id)).toContain('tck-extended');
      expect(c.supportedInterfaces.map((i) => i.protocolBinding).sort()).toEqual(
        pub.supportedInterfaces.map((i) => i.protocolBinding).sort(),
      );
    }
  });
});
