/**
 * Signed cards served by `createA2AServer({ cardSigning })` (A2A §8.4, ADR 0074): every key signs the public
 * card once per rendering (per origin), the ETag covers the signed body, the extended card is signed too, and the
 * JWKS of the keys is served; both our verifier and `@a2a-js/sdk`'s accept what is served.
 */
import { verifyAgentCardSignature, type AgentCard as JsAgentCard } from '@a2a-js/sdk';
import type { JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { verifyAgentCard } from '../../../src/card-signing/verify-agent-card.js';
import { CardSigningKeyError } from '../../../src/card-signing/signing-keys.js';
import type { A2AServer } from '../../../src/server/create-server.js';
import { testKey, type TestKey } from '../../card-signing/keys.js';
import { builtinServer, rest, rpc } from './fixtures.js';

let oldKey: TestKey;
let newKey: TestKey;
let server: A2AServer;
const servers: A2AServer[] = [];

beforeAll(async () => {
  vi.spyOn(console, 'debug').mockImplementation(() => undefined);
  [oldKey, newKey] = await Promise.all([testKey('2026-06'), testKey('2026-12', 'EdDSA')]);
  server = builtinServer('tck', { cardSigning: { keys: [oldKey.privateJwk, newKey.privateJwk] } });
  servers.push(server);
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

const cardAt = (origin: string) => new Request(`${origin}/.well-known/agent-card.json`);

async function a2aJsVerifies(card: unknown, keys: readonly JWK[]): Promise<void> {
  const verifier = verifyAgentCardSignature((kid) => {
    const key = keys.find((k) => k.kid === kid);
    return key ? Promise.resolve(key) : Promise.reject(new Error(`unknown kid ${kid}`));
  });
  await verifier(card as JsAgentCard);
}

describe('a signed public card', () => {
  it('carries one signature per key with alg, kid, typ and a jku naming the served JWKS', async () => {
    const card = (await (await server.fetch(cardAt('http://agent.example:8080'))).json()) as {
      signatures: { protected: string }[];
    };
    const headers = card.signatures.map(
      (s) => JSON.parse(Buffer.from(s.protected, 'base64url').toString()) as Record<string, unknown>,
    );
    expect(headers.map((h) => [h.kid, h.alg, h.typ, h.jku])).toEqual([
      ['2026-06', 'ES256', 'JOSE', 'http://agent.example:8080/.well-known/jwks.json'],
      ['2026-12', 'EdDSA', 'JOSE', 'http://agent.example:8080/.well-known/jwks.json'],
    ]);
  });

  it('verifies with ours trusting only the new key, and with @a2a-js/sdk', async () => {
    const card = (await (await server.fetch(cardAt('http://agent.example:8080'))).json()) as object;
    await expect(verifyAgentCard(card, { keys: [newKey.publicJwk] })).resolves.toMatchObject({
      kid: '2026-12',
    });
    await expect(a2aJsVerifies(card, [oldKey.publicJwk])).resolves.toBeUndefined();
  });

  it('is signed once per rendering: the same body and ETag on every request, and a 304 on revalidation', async () => {
    const first = await server.fetch(cardAt('http://one.example'));
    const second = await server.fetch(cardAt('http://one.example'));
    const etag = first.headers.get('etag')!;
    expect(await first.text()).toBe(await second.text());
    expect(second.headers.get('etag')).toBe(etag);
    const revalidated = await server.fetch(
      new Request('http://one.example/.well-known/agent-card.json', { headers: { 'If-None-Match': etag } }),
    );
    expect(revalidated.status).toBe(304);
  });

  it('is rendered and signed per origin: each verifies with its own interfaces', async () => {
    for (const origin of ['http://a.example', 'http://b.example:9000']) {
      const card = (await (await server.fetch(cardAt(origin))).json()) as {
        supportedInterfaces: { url: string }[];
      };
      expect(new URL(card.supportedInterfaces[0]!.url).origin).toBe(origin);
      await expect(verifyAgentCard(card, { keys: [oldKey.publicJwk] })).resolves.toMatchObject({
        kid: '2026-06',
      });
    }
  });

  it('serves the public JWKS (no private members), which a client can name as its trust root', async () => {
    const res = await server.fetch(new Request('http://agent.example/.well-known/jwks.json'));
    expect(res.status).toBe(200);
    const jwks = (await res.json()) as { keys: JWK[] };
    expect(jwks.keys.map((k) => k.kid)).toEqual(['2026-06', '2026-12']);
    for (const k of jwks.keys) expect(k).not.toHaveProperty('d');
    const card = (await (await server.fetch(cardAt('http://agent.example'))).json()) as object;
    const viaUrl = await verifyAgentCard(card, {
      jwksUrl: 'http://agent.example/.well-known/jwks.json',
      fetch: (input) => server.fetch(new Request(input)),
    });
    expect(viaUrl.kid).toBe('2026-06');
  });
});

describe('a signed extended card', () => {
  it('over JSON-RPC and REST verifies, with the per-origin interfaces inside the signature', async () => {
    const env = await rpc(server, 'GetExtendedAgentCard', {});
    const viaRpc = (env as { result: object }).result;
    const viaRest = (await (await rest(server, 'GET', '/extendedAgentCard')).json()) as object;
    for (const card of [viaRpc, viaRest]) {
      expect((card as { signatures?: unknown[] }).signatures).toHaveLength(2);
      await expect(verifyAgentCard(card, { keys: [newKey.publicJwk] })).resolves.toMatchObject({
        kid: '2026-12',
      });
      await expect(a2aJsVerifies(card, [newKey.publicJwk])).resolves.toBeUndefined();
    }
  });
});

describe('card signing options', () => {
  it('a custom JWKS path, and no jku when told so', async () => {
    const s = builtinServer('echo', {
      cardSigning: { keys: [newKey.privateJwk], jwksPath: '/keys.json', jku: false },
    });
    servers.push(s);
    expect((await s.fetch(new Request('http://x.example/keys.json'))).status).toBe(200);
    expect((await s.fetch(new Request('http://x.example/.well-known/jwks.json'))).status).toBe(404);
    const card = (await (await s.fetch(cardAt('http://x.example'))).json()) as {
      signatures: { protected: string }[];
    };
    expect(JSON.parse(Buffer.from(card.signatures[0]!.protected, 'base64url').toString())).not.toHaveProperty(
      'jku',
    );
  });

  it('refuses a public key at construction, naming why', () => {
    const { d: _d, ...publicOnly } = newKey.privateJwk;
    expect(() => builtinServer('echo', { cardSigning: { keys: [publicOnly] } })).toThrow(CardSigningKeyError);
  });
});
