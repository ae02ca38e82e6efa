/**
 * The v0.3 card of a compat server (ADR 0099, docs/guides/v03-peers.md): which card a request gets by its
 * `A2A-Version`, the fallback path, caching headers, the v1.0 card listing the v0.3 interfaces after its own,
 * the v0.3 card's extensions, security in v0.3 form and its own signature over what is served; compat off
 * serves the v1.0 card unchanged. `@a2a-js/sdk`'s v0.3 reader and our zod expectations both accept the card.
 */
import { parseLegacyAgentCard, isLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { flattenedVerify, importJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { canonicalJson } from '../../../src/card-signing/jcs.js';
import { IDEMPOTENCY_EXTENSION_URI } from '../../../src/idempotency/index.js';
import { bearerTokens } from '../../../src/server/auth/bearer-tokens.js';
import { createA2AServer, type A2AServer } from '../../../src/server/create-server.js';
import { securitySchemeToV03 } from '../../../src/server/compat/v03-security.js';
import { testKey, type TestKey } from '../../card-signing/keys.js';

const CARD = 'http://agent.test/.well-known/agent-card.json';
const agent = { execute: async (ctx: { complete: (t: string) => Promise<void> }) => ctx.complete('ok') };
const card = {
  name: 'card-v03',
  description: 'A v0.3 card',
  capabilities: { streaming: true, extendedAgentCard: true },
  skills: [
    {
      id: 'echo',
      name: 'Echo',
      description: 'Echoes',
      tags: ['echo'],
      securityRequirements: [{ schemes: { bearer: { list: ['echo:run'] } } }],
    },
  ],
};

let key: TestKey;
let on: A2AServer;
let off: A2AServer;
const servers: A2AServer[] = [];

beforeAll(async () => {
  key = await testKey('v03-card');
  on = createA2AServer({
    agent,
    card,
    compat: ['0.3'],
    http: {
      authenticate: bearerTokens({ tokens: [{ token: 'secret-token-1', principal: 'p', tenants: '*' }] }),
    },
    cardSigning: { keys: [key.privateJwk] },
  });
  off = createA2AServer({ agent, card });
  servers.push(on, off);
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

const get = (s: A2AServer, url: string, headers: Record<string, string> = {}) =>
  s.fetch(new Request(url, { headers }));

/** What a v0.3 card must hold (the v0.3.0 JSON schema's required fields, and what this server states). */
const V03Card = z.object({
  protocolVersion: z.literal('0.3.0'),
  name: z.string(),
  description: z.string(),
  url: z.string().url(),
  preferredTransport: z.literal('JSONRPC'),
  additionalInterfaces: z.array(z.object({ url: z.string().url(), transport: z.string() })),
  version: z.string(),
  capabilities: z.object({
    streaming: z.boolean().optional(),
    extensions: z.array(z.object({ uri: z.string(), required: z.boolean().optional() })),
  }),
  securitySchemes: z.record(z.string(), z.object({ type: z.string() }).passthrough()),
  security: z.array(z.record(z.string(), z.array(z.string()))),
  defaultInputModes: z.array(z.string()),
  defaultOutputModes: z.array(z.string()),
  skills: z.array(
    z.object({ id: z.string(), security: z.array(z.record(z.string(), z.array(z.string()))) }).passthrough(),
  ),
  signatures: z.array(z.object({ protected: z.string(), signature: z.string() })).min(1),
});

async function verifies(served: Record<string, unknown>): Promise<void> {
  const { signatures, ...rest } = served as { signatures: { protected: string; signature: string }[] };
  const payload = Buffer.from(canonicalJson(rest)).toString('base64url');
  const pub = await importJWK(key.publicJwk, key.publicJwk.alg);
  for (const s of signatures) await flattenedVerify({ ...s, payload }, pub);
}

describe('the card a compat server serves', () => {
  it('answers the v0.3 card without A2A-Version and with 0.3, the v1.0 card with 1.0', async () => {
    for (const h of [{}, { 'A2A-Version': '0.3' }, { 'A2A-Version': '0.3.0' }] as Record<string, string>[]) {
      const body = (await (await get(on, CARD, h)).json()) as Record<string, unknown>;
      expect(body.protocolVersion).toBe('0.3.0');
    }
    const v1 = (await (await get(on, CARD, { 'A2A-Version': '1.0' })).json()) as Record<string, unknown>;
    expect(v1.protocolVersion).toBeUndefined();
    expect(v1.supportedInterfaces).toBeDefined();
  });

  it('serves the v0.3 card at /.well-known/agent.json, and 404 there without compat', async () => {
    const res = await get(on, 'http://agent.test/.well-known/agent.json', { 'A2A-Version': '1.0' });
    expect(((await res.json()) as { protocolVersion: string }).protocolVersion).toBe('0.3.0');
    expect((await get(off, 'http://agent.test/.well-known/agent.json')).status).toBe(404);
  });

  it('varies on A2A-Version, has its own ETag, and answers 304 to it', async () => {
    const a = await get(on, CARD);
    const b = await get(on, CARD, { 'A2A-Version': '1.0' });
    expect(a.headers.get('vary')).toContain('A2A-Version');
    expect(b.headers.get('vary')).toContain('A2A-Version');
    expect(a.headers.get('cache-control')).toMatch(/max-age=\d+/);
    expect(a.headers.get('last-modified')).toBeTruthy();
    const etag = a.headers.get('etag')!;
    expect(etag).not.toBe(b.headers.get('etag'));
    expect((await get(on, CARD, { 'If-None-Match': etag })).status).toBe(304);
    expect((await get(on, CARD, { 'If-None-Match': etag, 'A2A-Version': '1.0' })).status).toBe(200);
  });

  it('lists the v0.3 interfaces in the v1.0 card after the v1.0 ones, and embeds them in the v0.3 card', async () => {
    const v1 = (await (await get(on, CARD, { 'A2A-Version': '1.0' })).json()) as {
      supportedInterfaces: { url: string; protocolBinding: string; protocolVersion: string }[];
    };
    const versions = v1.supportedInterfaces.map((i) => `${i.protocolBinding}@${i.protocolVersion}`);
    expect(versions).toEqual(['JSONRPC@1.0', 'HTTP+JSON@1.0', 'JSONRPC@0.3', 'HTTP+JSON@0.3']);
    const v03 = (await (await get(on, CARD)).json()) as { supportedInterfaces: unknown };
    expect(v03.supportedInterfaces).toEqual(v1.supportedInterfaces);
    const plain = (await (await get(off, CARD)).json()) as { supportedInterfaces: unknown[] };
    expect(plain.supportedInterfaces).toHaveLength(2);
    expect((await get(off, CARD)).headers.get('vary')).toBe('Accept');
  });

  it('is a v0.3 card to @a2a-js/sdk and to our schema: extensions, security, a verified signature', async () => {
    const body = (await (await get(on, CARD)).json()) as Record<string, unknown>;
    // a2a-js reads a card that embeds `supportedInterfaces` as v1.0 (the point of embedding them); without them
    // it is a v0.3 card to it.
    const { supportedInterfaces: _embedded, ...bare } = body;
    expect(isLegacyAgentCard(bare)).toBe(true);
    const parsed = parseLegacyAgentCard(body) as unknown as {
      name: string;
      securitySchemes: Record<string, unknown>;
      signatures: unknown[];
    };
    expect(parsed.name).toBe('card-v03');
    expect(Object.keys(parsed.securitySchemes)).toEqual(['bearer']);
    expect(parsed.signatures).toHaveLength(1);
    const v03 = V03Card.parse(body);
    expect(v03.capabilities.extensions.map((e) => e.uri)).toContain(IDEMPOTENCY_EXTENSION_URI);
    expect(v03.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'Bearer' });
    expect(v03.security).toEqual([{ bearer: [] }]);
    expect(v03.skills[0]!.security).toEqual([{ bearer: ['echo:run'] }]);
    expect(v03.additionalInterfaces.map((i) => i.transport)).toEqual(['JSONRPC', 'HTTP+JSON']);
    await verifies(body);
  });

  it('serves the v1.0 card unchanged with compat off, whatever the header', async () => {
    for (const h of [{}, { 'A2A-Version': '0.3' }] as Record<string, string>[]) {
      const body = (await (await get(off, CARD, h)).json()) as Record<string, unknown>;
      expect(body.protocolVersion).toBeUndefined();
      expect(body.supportedInterfaces).toBeDefined();
    }
  });
});

describe('security schemes in v0.3 form', () => {
  it('translates each v1.0 scheme', () => {
    expect(securitySchemeToV03({ apiKeySecurityScheme: { location: 'header', name: 'X-Key' } })).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'X-Key',
    });
    expect(securitySchemeToV03({ apiKeySecurityScheme: { location: 'query', name: 'k' } })).toMatchObject({
      in: 'query',
    });
    expect(
      securitySchemeToV03({ httpAuthSecurityScheme: { scheme: 'bearer', bearerFormat: 'JWT' } }),
    ).toEqual({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
    });
    expect(
      securitySchemeToV03({
        oauth2SecurityScheme: {
          flows: { clientCredentials: { tokenUrl: 'https://idp.test/token', scopes: { run: 'Run' } } },
        },
      }),
    ).toEqual({
      type: 'oauth2',
      flows: { clientCredentials: { tokenUrl: 'https://idp.test/token', scopes: { run: 'Run' } } },
    });
    expect(
      securitySchemeToV03({
        openIdConnectSecurityScheme: {
          openIdConnectUrl: 'https://idp.test/.well-known/openid-configuration',
        },
      }),
    ).toEqual({
      type: 'openIdConnect',
      openIdConnectUrl: 'https://idp.test/.well-known/openid-configuration',
    });
    expect(securitySchemeToV03({ mtlsSecurityScheme: { description: 'mTLS' } })).toEqual({
      type: 'mutualTLS',
      description: 'mTLS',
    });
    expect(securitySchemeToV03({})).toBeUndefined();
  });
});
