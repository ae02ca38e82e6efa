/**
 * The card's `securitySchemes` and `securityRequirements` are derived from the authenticator that runs
 * (ADR 0076), on the public card and the extended one, which goes only to an authenticated caller.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { exportJWK, generateKeyPair } from 'jose';
import { AgentCardSchema } from '../../../src/protocol/schemas/index.js';
import { anyOf, apiKeys, jwtBearer, bearerTokens } from '../../../src/server/index.js';
import type { AgentCard } from '../../../src/protocol/agent-card.js';
import { bearer, call, reasonOf, startAuthServer, type AuthServer } from './auth-fixtures.js';

let running: AuthServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

const card = {
  name: 'secure',
  description: 'a card with an extended card',
  capabilities: { streaming: true, extendedAgentCard: true },
};
const extended: AgentCard = {
  name: 'secure (extended)',
  description: 'for callers who authenticated',
  version: '1.0.0',
  supportedInterfaces: [],
  capabilities: { streaming: true, extendedAgentCard: true },
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'secret', name: 'secret skill', description: 'only here', tags: [] }],
};

async function publicCard(url: string): Promise<AgentCard> {
  const res = await fetch(`${url}/.well-known/agent-card.json`);
  expect(res.status).toBe(200);
  return AgentCardSchema.parse(await res.json());
}

describe('the card states the schemes that are checked', () => {
  it('anyOf(jwtBearer, apiKeys): both schemes, each an alternative requirement, on both cards', async () => {
    const { publicKey } = await generateKeyPair('ES256');
    const auth = anyOf(
      jwtBearer({ keys: { keys: [await exportJWK(publicKey)] }, issuer: 'https://i.test', audience: 'a' }),
      apiKeys({ header: 'X-Agent-Key', keys: [{ token: 'agent-key-000000001', principal: 'ops' }] }),
    );
    running = await startAuthServer({ authenticate: auth }, { card, extendedCard: extended });
    const served = await publicCard(running.url);
    expect(served.securitySchemes).toEqual({
      jwt: {
        httpAuthSecurityScheme: {
          scheme: 'Bearer',
          bearerFormat: 'JWT',
          description: 'A JWT bearer token from the issuer this agent trusts',
        },
      },
      apiKey: {
        apiKeySecurityScheme: {
          location: 'header',
          name: 'X-Agent-Key',
          description: 'An API key issued by the operator of this agent',
        },
      },
    });
    expect(served.securityRequirements).toEqual([
      { schemes: { jwt: { list: [] } } },
      { schemes: { apiKey: { list: [] } } },
    ]);
    // The handler's own card says the same: whatever reads or signs it sees the schemes.
    expect(running.server.handler.agentCard.securitySchemes).toEqual(served.securitySchemes);

    for (const binding of ['jsonrpc', 'rest'] as const) {
      const anon = await call(running.url, binding, 'GetExtendedAgentCard', {});
      expect(anon.status).toBe(401);
      expect(reasonOf(anon)).toBe('UNAUTHENTICATED');
      expect(anon.text).not.toContain('secret skill');
      const ok = await call(
        running.url,
        binding,
        'GetExtendedAgentCard',
        {},
        { 'X-Agent-Key': 'agent-key-000000001' },
      );
      expect(ok.status).toBe(200);
      const j = ok.json as { result?: AgentCard } & AgentCard;
      const ext = j.result ?? j;
      expect(ext.skills[0]!.name).toBe('secret skill');
      expect(ext.securitySchemes).toEqual(served.securitySchemes);
      expect(ext.securityRequirements).toEqual(served.securityRequirements);
    }
  });

  it('an operator-written scheme is replaced by what the authenticator checks', async () => {
    running = await startAuthServer(
      { authenticate: bearerTokens({ scheme: 'ops', tokens: [{ token: 'tok-000000000000001' }] }) },
      {
        card: {
          ...card,
          securitySchemes: { legacy: { mtlsSecurityScheme: {} } },
          securityRequirements: [{ schemes: { legacy: { list: [] } } }],
        },
        extendedCard: () => Promise.resolve(extended),
      },
    );
    const served = await publicCard(running.url);
    expect(Object.keys(served.securitySchemes ?? {})).toEqual(['ops']);
    expect(served.securityRequirements).toEqual([{ schemes: { ops: { list: [] } } }]);
    const ext = await call(running.url, 'rest', 'GetExtendedAgentCard', {}, bearer('tok-000000000000001'));
    expect((ext.json as AgentCard).securitySchemes).toEqual(served.securitySchemes);
  });

  it('with the bare hook the card keeps what the host wrote, and an anonymous caller gets no extended card', async () => {
    const written = { legacy: { httpAuthSecurityScheme: { scheme: 'Bearer' } } };
    running = await startAuthServer(
      { authenticate: (req) => req.headers.get('x-user') ?? undefined },
      { card: { ...card, securitySchemes: written }, extendedCard: extended },
    );
    expect((await publicCard(running.url)).securitySchemes).toEqual(written);
    const anon = await call(running.url, 'jsonrpc', 'GetExtendedAgentCard', {});
    expect(anon.status).toBe(401);
    const user = await call(running.url, 'jsonrpc', 'GetExtendedAgentCard', {}, { 'x-user': 'dana' });
    expect(user.status).toBe(200);
  });
});
