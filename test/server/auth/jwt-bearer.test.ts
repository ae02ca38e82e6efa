/**
 * `jwtBearer` over real HTTP (ADR 0077): tokens signed by `jose` in the test, keys served as a JWKS by a real
 * local HTTP server that counts its hits. Issuer, audience, expiry, algorithm allow-list, claims for principal
 * and tenants; the key set is fetched once and again only for an unknown `kid`, at most once per cooldown.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type CryptoKey } from 'jose';
import { anyOf, bearerTokens, jwtBearer } from '../../../src/server/index.js';
import { bearer, call, message, reasonOf, startAuthServer, type AuthServer } from './auth-fixtures.js';

const ISSUER = 'https://issuer.test';
const AUDIENCE = 'https://agent.test';

let jwksServer: Server;
let jwksUrl: string;
let hits = 0;
let published: JWK[] = [];
let signing: { privateKey: CryptoKey; kid: string };
let other: { privateKey: CryptoKey; kid: string };

beforeAll(async () => {
  const a = await generateKeyPair('ES256');
  const b = await generateKeyPair('ES256');
  signing = { privateKey: a.privateKey, kid: 'key-a' };
  other = { privateKey: b.privateKey, kid: 'key-b' };
  published = [{ ...(await exportJWK(a.publicKey)), kid: 'key-a', alg: 'ES256', use: 'sig' }];
  jwksServer = createServer((_req, res) => {
    hits++;
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ keys: published }));
  });
  await new Promise<void>((r) => jwksServer.listen(0, '127.0.0.1', r));
  jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`;
});
afterAll(() => new Promise<void>((r) => jwksServer.close(() => r())));

let running: AuthServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

function token(
  claims: Record<string, unknown> = {},
  o: { key?: typeof signing; iss?: string; aud?: string; exp?: string | number } = {},
): Promise<string> {
  const key = o.key ?? signing;
  return new SignJWT({ sub: 'alice', ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: key.kid })
    .setIssuer(o.iss ?? ISSUER)
    .setAudience(o.aud ?? AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(o.exp ?? '5m')
    .sign(key.privateKey);
}

async function start(extra: Partial<Parameters<typeof jwtBearer>[0]> = {}): Promise<AuthServer> {
  hits = 0;
  running = await startAuthServer({
    authenticate: jwtBearer({ jwksUrl, issuer: ISSUER, audience: AUDIENCE, ...extra }),
  });
  return running;
}

describe('jwtBearer against a JWKS URL', () => {
  it('accepts a good token, and fetches the key set once for many requests', async () => {
    const s = await start();
    const t = await token();
    for (let i = 0; i < 25; i++) {
      const a = await call(s.url, i % 2 ? 'rest' : 'jsonrpc', 'ListTasks', {}, bearer(t));
      expect(a.status).toBe(200);
    }
    const sent = await call(s.url, 'jsonrpc', 'SendMessage', { message: message('hi') }, bearer(t));
    expect(sent.text).toContain('done for alice');
    expect(hits).toBe(1);
  });

  it('an unknown kid refetches once, and not again within the cooldown', async () => {
    const s = await start({ jwks: { cooldownMs: 60_000 } });
    expect((await call(s.url, 'rest', 'ListTasks', {}, bearer(await token()))).status).toBe(200);
    expect(hits).toBe(1);
    // Signed by a key the set does not hold: refused, after one refetch at most.
    for (let i = 0; i < 10; i++) {
      const a = await call(s.url, 'rest', 'ListTasks', {}, bearer(await token({}, { key: other })));
      expect(a.status).toBe(401);
    }
    expect(hits).toBeLessThanOrEqual(2);
  });

  it('refuses a wrong issuer, a wrong audience, an expired token, a bad signature, alg none', async () => {
    const s = await start({ clockToleranceSeconds: 0 });
    const bad = [
      await token({}, { iss: 'https://elsewhere.test' }),
      await token({}, { aud: 'https://other-agent.test' }),
      await token({}, { exp: Math.floor(Date.now() / 1000) - 60 }),
    ];
    const good = await token();
    const [h, p] = good.split('.');
    bad.push(`${h}.${p}.${'A'.repeat(86)}`);
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', kid: 'key-a' })).toString('base64url')}.${p}.`;
    bad.push(none);
    for (const t of bad) {
      for (const binding of ['jsonrpc', 'rest'] as const) {
        const a = await call(s.url, binding, 'ListTasks', {}, bearer(t));
        expect(a.status, t).toBe(401);
        expect(reasonOf(a)).toBe('UNAUTHENTICATED');
        expect(a.headers.get('www-authenticate')).toBe('Bearer realm="a2a"');
        expect(a.text).not.toContain(t);
      }
    }
  });

  it('takes the principal and the tenants from the configured claims (a string or a list)', async () => {
    const s = await start({ principalClaim: 'client_id', tenantsClaim: 'orgs' });
    const listed = await token({ client_id: 'svc-7', orgs: ['acme', 'beta'] });
    expect((await call(s.url, 'rest', 'ListTasks', { tenant: 'acme' }, bearer(listed))).status).toBe(200);
    expect((await call(s.url, 'rest', 'ListTasks', { tenant: 'beta' }, bearer(listed))).status).toBe(200);
    const denied = await call(s.url, 'rest', 'ListTasks', { tenant: 'gamma' }, bearer(listed));
    expect(denied.status).toBe(403);
    expect((await call(s.url, 'rest', 'ListTasks', {}, bearer(listed))).status).toBe(403);
    const one = await token({ client_id: 'svc-8', orgs: 'acme' });
    expect((await call(s.url, 'jsonrpc', 'ListTasks', { tenant: 'acme' }, bearer(one))).status).toBe(200);
    const sent = await call(
      s.url,
      'jsonrpc',
      'SendMessage',
      { tenant: 'acme', message: message('x') },
      bearer(one),
    );
    expect(sent.text).toContain('done for svc-8');
    // No tenants claim: only requests that name no tenant.
    const bare = await token({ client_id: 'svc-9' });
    expect((await call(s.url, 'jsonrpc', 'ListTasks', {}, bearer(bare))).status).toBe(200);
    expect((await call(s.url, 'jsonrpc', 'ListTasks', { tenant: 'acme' }, bearer(bare))).status).toBe(403);
    // No principal claim: refused.
    const nobody = await token({ orgs: 'acme' });
    expect((await call(s.url, 'jsonrpc', 'ListTasks', {}, bearer(nobody))).status).toBe(401);
  });

  it('a key set that cannot be fetched is 503 with Retry-After, not 401', async () => {
    running = await startAuthServer({
      authenticate: jwtBearer({
        jwksUrl: 'http://127.0.0.1:9/jwks.json',
        issuer: ISSUER,
        audience: AUDIENCE,
      }),
    });
    const a = await call(running.url, 'rest', 'ListTasks', {}, bearer(await token()));
    expect(a.status).toBe(503);
    expect(a.headers.get('retry-after')).toBe('5');
  });
});

describe('jwtBearer configuration', () => {
  it('refuses none and HMAC algorithms, private or symmetric static keys, and a missing key source', async () => {
    expect(() => jwtBearer({ jwksUrl, issuer: ISSUER, audience: AUDIENCE, algorithms: ['none'] })).toThrow(
      /none/,
    );
    expect(() => jwtBearer({ jwksUrl, issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] })).toThrow(
      /HS256/,
    );
    expect(() => jwtBearer({ issuer: ISSUER, audience: AUDIENCE })).toThrow(/exactly one/);
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const priv = await exportJWK(privateKey);
    expect(() => jwtBearer({ keys: { keys: [priv] }, issuer: ISSUER, audience: AUDIENCE })).toThrow(/public/);
    expect(() =>
      jwtBearer({ keys: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] }, issuer: ISSUER, audience: AUDIENCE }),
    ).toThrow(/public/);
    expect(() => jwtBearer({ jwksUrl, issuer: [], audience: AUDIENCE })).toThrow(/issuer/);
  });

  it('a static key set verifies without any fetch', async () => {
    hits = 0;
    running = await startAuthServer({
      authenticate: jwtBearer({ keys: { keys: published }, issuer: ISSUER, audience: AUDIENCE }),
    });
    expect((await call(running.url, 'rest', 'ListTasks', {}, bearer(await token()))).status).toBe(200);
    expect(hits).toBe(0);
  });

  it('in anyOf, a JWT that fails is refused, never passed on to a token list that would take it', async () => {
    const forged = `${Buffer.from('{"alg":"ES256"}').toString('base64url')}.e30.c2ln`;
    running = await startAuthServer({
      authenticate: anyOf(
        jwtBearer({ jwksUrl, issuer: ISSUER, audience: AUDIENCE }),
        bearerTokens({
          tokens: [
            { token: forged, principal: 'lenient' },
            { token: 'opaque-token-123456', principal: 'op' },
          ],
        }),
      ),
    });
    expect((await call(running.url, 'rest', 'ListTasks', {}, bearer(forged))).status).toBe(401);
    // An opaque token is not a JWT's to judge: the list decides.
    const op = await call(
      running.url,
      'jsonrpc',
      'SendMessage',
      { message: message('x') },
      bearer('opaque-token-123456'),
    );
    expect(op.text).toContain('done for op');
    expect((await call(running.url, 'rest', 'ListTasks', {}, bearer(await token()))).status).toBe(200);
  });
});

describe('jwtBearer remembers the tokens that verified (ADR 0136)', () => {
  // A key set that is stale as soon as it is fetched: every signature check fetches it, so `hits` counts checks.
  const everyCheckFetches = { jwks: { cacheMaxAgeMs: 1 } };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const list = (s: AuthServer, t: string) => call(s.url, 'rest', 'ListTasks', {}, bearer(t));

  it("takes a caller's token again without checking its signature; `cache: false` checks every request", async () => {
    const s = await start(everyCheckFetches);
    const t = await token();
    for (let i = 0; i < 10; i++) expect((await list(s, t)).status).toBe(200);
    expect(hits).toBe(1);
    await running?.close();
    const off = await start({ ...everyCheckFetches, cache: false });
    for (let i = 0; i < 10; i++) expect((await list(off, t)).status).toBe(200);
    expect(hits).toBe(10);
  });

  it('still refuses a remembered token from its exp on (the verifier’s tolerance, no more)', async () => {
    const s = await start({ clockToleranceSeconds: 0 });
    const exp = Math.floor(Date.now() / 1000) + 2;
    const t = await token({}, { exp });
    expect((await list(s, t)).status).toBe(200);
    expect((await list(s, t)).status).toBe(200);
    await sleep(exp * 1000 - Date.now() + 50);
    const late = await list(s, t);
    expect(late.status).toBe(401);
    expect(reasonOf(late)).toBe('UNAUTHENTICATED');
  });

  it('checks a token again once maxAgeMs has passed since it verified', async () => {
    const s = await start({ ...everyCheckFetches, cache: { maxAgeMs: 200 } });
    const t = await token();
    expect((await list(s, t)).status).toBe(200);
    expect((await list(s, t)).status).toBe(200);
    expect(hits).toBe(1);
    await sleep(250);
    expect((await list(s, t)).status).toBe(200);
    expect(hits).toBe(2);
  });

  it('holds at most maxEntries tokens, the oldest pushed out, each keeping its own principal', async () => {
    const s = await start({ ...everyCheckFetches, cache: { maxEntries: 2 } });
    const [a, b, c] = await Promise.all(['ann', 'bob', 'cid'].map((sub) => token({ sub })));
    for (const t of [a!, b!, c!]) expect((await list(s, t)).status).toBe(200);
    expect(hits).toBe(3);
    // c and b are remembered; a was pushed out and is checked again.
    expect((await list(s, c!)).status).toBe(200);
    expect(hits).toBe(3);
    const again = await call(s.url, 'jsonrpc', 'SendMessage', { message: message('x') }, bearer(a!));
    expect(again.text).toContain('done for ann');
    expect(hits).toBe(4);
    const fromCache = await call(s.url, 'jsonrpc', 'SendMessage', { message: message('y') }, bearer(c!));
    expect(fromCache.text).toContain('done for cid');
    expect(hits).toBe(4);
  });

  it('never remembers a refusal, nor takes a token that differs from a remembered one in its signature', async () => {
    const s = await start({ clockToleranceSeconds: 0 });
    const good = await token();
    expect((await list(s, good)).status).toBe(200);
    const [h, p, sig] = good.split('.');
    const flipped = `${h}.${p}.${sig!.slice(0, -2)}${sig!.endsWith('AA') ? 'BB' : 'AA'}`;
    for (let i = 0; i < 3; i++) expect((await list(s, flipped)).status).toBe(401);
    // A token refused for its nbf is judged again later, not answered from a remembered refusal.
    const soon = await new SignJWT({ sub: 'alice' })
      .setProtectedHeader({ alg: 'ES256', kid: signing.kid })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setNotBefore(Math.floor(Date.now() / 1000) + 1)
      .setExpirationTime('5m')
      .sign(signing.privateKey);
    expect((await list(s, soon)).status).toBe(401);
    await sleep(Math.ceil(Date.now() / 1000) * 1000 - Date.now() + 1050);
    expect((await list(s, soon)).status).toBe(200);
  });
});
