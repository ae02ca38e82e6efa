/**
 * `oauth2ClientCredentials` (ADR 0080) against a real local OAuth 2 token endpoint (node:http, counting its hits,
 * checking the client's Basic credentials, issuing JWTs signed with `jose`) and a real a2a-once server behind
 * `jwtBearer` trusting that key: one token request shared by concurrent calls, the token cached until its expiry
 * less the skew, a refresh forced by a 401, and token endpoint failures as `TOKEN_REQUEST_FAILED` that never
 * show the client secret.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient, ClientError, describeError, oauth2ClientCredentials } from '../../../src/client/index.js';
import { jwtBearer } from '../../../src/server/index.js';
import { countedAgent, startAuthServer, type AuthServer } from '../../server/auth/auth-fixtures.js';

const ISSUER = 'https://issuer.test';
const AUDIENCE = 'https://agent.test';
const CLIENT_ID = 'billing-agent';
const SECRET = 'client-secret-5f4dcc3b5aa765d61d8327deb882cf99';

let signing: CryptoKey;
let stranger: CryptoKey;
let jwk: JWK;

/** The token endpoint's behaviour for the next requests. */
let tokenHits = 0;
let forms: URLSearchParams[] = [];
let answer: (n: number) => { status: number; body: unknown; delayMs?: number } = () => ({
  status: 500,
  body: {},
});
let tokenServer: Server;
let tokenUrl: string;

async function jwtFor(key: CryptoKey, seconds: number): Promise<string> {
  return new SignJWT({ sub: 'billing' })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + seconds)
    .sign(key);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => resolve(text));
  });
}

beforeAll(async () => {
  const a = await generateKeyPair('ES256');
  const b = await generateKeyPair('ES256');
  signing = a.privateKey;
  stranger = b.privateKey;
  jwk = { ...(await exportJWK(a.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  tokenServer = createServer((req, res) => {
    void readBody(req).then((text) => {
      const n = ++tokenHits;
      forms.push(new URLSearchParams(text));
      const expected = `Basic ${Buffer.from(`${CLIENT_ID}:${SECRET}`).toString('base64')}`;
      const a =
        req.headers.authorization === expected
          ? answer(n)
          : { status: 401, body: { error: 'invalid_client' } };
      setTimeout(() => {
        res.writeHead(a.status, { 'Content-Type': 'application/json' }).end(JSON.stringify(a.body));
      }, a.delayMs ?? 0);
    });
  });
  await new Promise<void>((r) => tokenServer.listen(0, '127.0.0.1', r));
  tokenUrl = `http://127.0.0.1:${(tokenServer.address() as AddressInfo).port}/oauth/token`;
});
afterAll(() => new Promise<void>((r) => tokenServer.close(() => r())));

let running: AuthServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function jwtServer() {
  tokenHits = 0;
  forms = [];
  const agent = countedAgent();
  running = await startAuthServer(
    { authenticate: jwtBearer({ keys: { keys: [jwk] }, issuer: ISSUER, audience: AUDIENCE }) },
    { agent: agent.agent },
  );
  return agent;
}

/** Answers every token request with a fresh JWT signed by `key`, living `seconds`. */
function issuing(seconds = 300, key: () => CryptoKey = () => signing, delayMs = 0) {
  return async (n: number) => ({
    status: 200,
    delayMs,
    body: { access_token: await jwtFor(key(), seconds), token_type: 'Bearer', expires_in: seconds, n },
  });
}

function provider(extra: Partial<Parameters<typeof oauth2ClientCredentials>[0]> = {}) {
  return oauth2ClientCredentials({ tokenUrl, clientId: CLIENT_ID, clientSecret: SECRET, ...extra });
}

/** `answer` may be async here: the endpoint awaits it through this wrapper. */
function setAnswer(fn: (n: number) => Promise<{ status: number; body: unknown; delayMs?: number }>) {
  const pending = new Map<number, { status: number; body: unknown; delayMs?: number }>();
  answer = (n) => pending.get(n) ?? { status: 500, body: {} };
  return async (count: number) => {
    for (let n = tokenHits + 1; n <= tokenHits + count; n++) pending.set(n, await fn(n));
  };
}

describe('oauth2ClientCredentials', () => {
  it('asks once for concurrent calls, sends scope and audience, and reuses the token until it expires', async () => {
    const agent = await jwtServer();
    await setAnswer(issuing(300, () => signing, 200))(3);
    const client = A2AClient.fromEndpoint(running!.url, {
      credentials: provider({ scope: ['a2a:send', 'a2a:read'], audience: AUDIENCE }),
    });
    await Promise.all(Array.from({ length: 8 }, (_, i) => client.send(`hello ${i}`)));
    expect(tokenHits).toBe(1);
    expect(forms[0]!.get('grant_type')).toBe('client_credentials');
    expect(forms[0]!.get('scope')).toBe('a2a:send a2a:read');
    expect(forms[0]!.get('audience')).toBe(AUDIENCE);
    expect(forms[0]!.get('client_secret')).toBeNull(); // Basic by default
    await client.send('again');
    expect(tokenHits).toBe(1);
    expect(agent.runs.get('billing')).toBe(9);
  });

  it('renews a token past its expiry less the skew', async () => {
    await jwtServer();
    // A 2 s token with a 1.5 s skew is renewed after 1 s (never sooner than half its life).
    await setAnswer(issuing(2))(2);
    const client = A2AClient.fromEndpoint(running!.url, { credentials: provider({ expirySkewMs: 1500 }) });
    await client.send('one');
    await client.send('two');
    expect(tokenHits).toBe(1);
    await new Promise((r) => setTimeout(r, 1300));
    await client.send('three');
    expect(tokenHits).toBe(2);
  });

  it('a 401 drops the refused token and fetches another; the send runs once', async () => {
    const agent = await jwtServer();
    let n = 0;
    // The first token is signed by a key the agent does not trust: refused (401).
    await setAnswer(issuing(300, () => (++n === 1 ? stranger : signing)))(2);
    const client = A2AClient.fromEndpoint(running!.url, { credentials: provider() });
    const sent = await client.send('hello');
    expect('task' in sent && sent.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(tokenHits).toBe(2);
    expect(agent.total()).toBe(1);
  });

  it('concurrent calls refused with the same token share one refresh', async () => {
    const agent = await jwtServer();
    let n = 0;
    await setAnswer(issuing(300, () => (++n === 1 ? stranger : signing), 150))(3);
    const client = A2AClient.fromEndpoint(running!.url, { credentials: provider() });
    await Promise.all(Array.from({ length: 5 }, (_, i) => client.send(`hello ${i}`)));
    expect(tokenHits).toBe(2);
    expect(agent.total()).toBe(5);
  });

  it('a refusal by the token endpoint is TOKEN_REQUEST_FAILED naming the status and error code, never the secret', async () => {
    const agent = await jwtServer();
    const client = A2AClient.fromEndpoint(running!.url, {
      credentials: oauth2ClientCredentials({
        tokenUrl,
        clientId: CLIENT_ID,
        clientSecret: `${SECRET}-wrong`,
      }),
    });
    const err = await client.send('hello').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientError);
    expect((err as ClientError).code).toBe('TOKEN_REQUEST_FAILED');
    expect((err as ClientError).httpStatus).toBe(401);
    expect((err as Error).message).toContain('invalid_client');
    expect(inspect(err, { depth: 8 }) + describeError(err)).not.toContain(SECRET);
    expect(agent.total()).toBe(0);
  });

  it('an endpoint that echoes the secret, fails, answers garbage or is away: never the secret, nothing sent', async () => {
    const agent = await jwtServer();
    const answers: { status: number; body: unknown }[] = [
      { status: 400, body: { error: SECRET, error_description: `bad ${SECRET}` } },
      { status: 503, body: {} },
      { status: 200, body: { access_token: `a\n${SECRET}`, token_type: 'Bearer' } },
      { status: 200, body: { access_token: 'abc', token_type: 'mac' } },
    ];
    answer = (n) => answers[n - 1] ?? { status: 500, body: {} };
    const failures: unknown[] = [];
    for (let i = 0; i < answers.length; i++) {
      const client = A2AClient.fromEndpoint(running!.url, { credentials: provider() });
      failures.push(await client.getTask('t').catch((e: unknown) => e));
    }
    const away = oauth2ClientCredentials({
      tokenUrl: 'http://127.0.0.1:9/oauth/token',
      clientId: CLIENT_ID,
      clientSecret: SECRET,
    });
    failures.push(
      await A2AClient.fromEndpoint(running!.url, { credentials: away })
        .getTask('t')
        .catch((e: unknown) => e),
    );
    for (const f of failures) expect((f as ClientError).code).toBe('TOKEN_REQUEST_FAILED');
    const text = failures
      .map((f) => `${describeError(f)}\n${inspect(f, { depth: 8 })}\n${JSON.stringify(f)}`)
      .join('\n');
    expect(text).not.toContain(SECRET);
    expect(agent.total()).toBe(0);
  });

  it('refuses a token URL the secret must not travel to, and a missing secret, without showing it', () => {
    for (const o of [
      { tokenUrl: 'http://auth.example.com/token', clientId: CLIENT_ID, clientSecret: SECRET },
      { tokenUrl: 'not a url', clientId: CLIENT_ID, clientSecret: SECRET },
      { tokenUrl, clientId: CLIENT_ID, clientSecret: '' },
    ]) {
      let err: unknown;
      try {
        oauth2ClientCredentials(o);
      } catch (e) {
        err = e;
      }
      expect((err as ClientError).code).toBe('INVALID_ARGUMENT');
      expect(inspect(err)).not.toContain(SECRET);
    }
  });
});
