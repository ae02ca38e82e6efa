/**
 * The client's credentials against real a2a-once servers behind `bearerTokens` and `apiKeys` (ADR 0079): a fixed
 * credential, a scheme-agnostic `{ token }` placed as the card says, a provider refreshed once after a 401 (a
 * keyed send resent with the same key and messageId, an unkeyed one resent too, and the agent run once), a
 * second 401 final, a 403 final at once, and no credential in any log line, error or `describeError`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  A2AClient,
  ClientError,
  describeError,
  type ClientLogger,
  type CredentialRequest,
  type FetchLike,
} from '../../../src/client/index.js';
import { A2AError } from '../../../src/protocol/errors.js';
import { apiKeys, bearerTokens } from '../../../src/server/index.js';
import { countedAgent, startAuthServer, type AuthServer } from '../../server/auth/auth-fixtures.js';

const OLD = 'old-token-0123456789abcdef';
const GOOD = 'good-token-fedcba9876543210';
const KEY = 'api-key-aaaabbbbccccdddd';

let running: AuthServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** What went over the wire: each request's credential headers and JSON body (a real fetch underneath). */
interface Seen {
  authorization: string | null;
  apiKey: string | null;
  body: unknown;
}
function watchingFetch(seen: Seen[], header = 'X-Agent-Key'): FetchLike {
  return async (input, init) => {
    const h = new Headers(init.headers);
    seen.push({
      authorization: h.get('authorization'),
      apiKey: h.get(header),
      body: typeof init.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined,
    });
    return fetch(input, init);
  };
}

/** A logger that keeps every line (to grep for secrets). */
function keepingLogger(lines: string[]): ClientLogger {
  return {
    warn: (m, f) => lines.push(`${m} ${inspect(f, { depth: 6 })}`),
    error: (m, f) => lines.push(`${m} ${inspect(f, { depth: 6 })}`),
  };
}

/** A server that accepts `GOOD` as alice, for requests that name no tenant only. */
async function bearerServer() {
  const agent = countedAgent();
  running = await startAuthServer(
    { authenticate: bearerTokens({ tokens: [{ token: GOOD, principal: 'alice' }] }) },
    { agent: agent.agent },
  );
  return agent;
}

/** A provider that gives `OLD` first and `GOOD` on a refresh, recording what it was asked. */
function rotatingProvider(asked: CredentialRequest[]) {
  return (request: CredentialRequest) => {
    asked.push(request);
    return Promise.resolve({ bearer: request.refresh ? GOOD : OLD });
  };
}

function messageOf(body: unknown): { messageId: string; metadata?: Record<string, unknown> } {
  return (body as { params: { message: { messageId: string; metadata?: Record<string, unknown> } } }).params
    .message;
}

describe('fixed credentials', () => {
  it('sends { bearer } on every call, including the card fetch', async () => {
    const agent = await bearerServer();
    const seen: Seen[] = [];
    const client = await A2AClient.fromCardUrl(running!.url, {
      credentials: { bearer: GOOD },
      fetch: watchingFetch(seen),
    });
    const sent = await client.send('hello');
    expect('task' in sent && sent.task.status.state).toBe('TASK_STATE_COMPLETED');
    const id = 'task' in sent ? sent.task.id : '';
    expect((await client.getTask(id)).id).toBe(id);
    expect(agent.runs.get('alice')).toBe(1);
    expect(seen.length).toBe(3);
    for (const s of seen) expect(s.authorization).toBe(`Bearer ${GOOD}`);
  });

  it('a 401 to a fixed credential is final at once: one request, UNAUTHENTICATED', async () => {
    const agent = await bearerServer();
    const seen: Seen[] = [];
    const client = A2AClient.fromEndpoint(running!.url, {
      credentials: { bearer: OLD },
      fetch: watchingFetch(seen),
    });
    const err = await client.getTask('t-1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(A2AError);
    expect((err as A2AError).reason).toBe('UNAUTHENTICATED');
    expect(seen.length).toBe(1);
    expect(agent.total()).toBe(0);
  });

  it('the credential replaces a fixed header of the same name, whatever its case', async () => {
    await bearerServer();
    const seen: Seen[] = [];
    const client = A2AClient.fromEndpoint(running!.url, {
      headers: { authorization: `Bearer ${OLD}` },
      credentials: { bearer: GOOD },
      fetch: watchingFetch(seen),
    });
    await client.send('hello');
    expect(seen[0]!.authorization).toBe(`Bearer ${GOOD}`);
  });

  it('refuses a credential that cannot travel in a header, without showing it', () => {
    for (const bad of [{ bearer: `${GOOD}\r\nX-Evil: 1` }, { bearer: '' }, { token: ` ${GOOD}` }]) {
      let err: unknown;
      try {
        A2AClient.fromEndpoint('http://127.0.0.1:9/', { credentials: bad });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ClientError);
      expect((err as ClientError).code).toBe('INVALID_CREDENTIAL');
      expect(inspect(err)).not.toContain(GOOD);
    }
  });
});

describe('{ token } placed as the card says', () => {
  it('goes in the header of the card’s API-key scheme', async () => {
    const agent = countedAgent();
    running = await startAuthServer(
      { authenticate: apiKeys({ header: 'X-Agent-Key', keys: [{ token: KEY, principal: 'billing' }] }) },
      { agent: agent.agent },
    );
    const seen: Seen[] = [];
    const client = await A2AClient.fromCardUrl(running.url, {
      credentials: { token: KEY },
      fetch: watchingFetch(seen),
    });
    await client.send('hello');
    expect(agent.runs.get('billing')).toBe(1);
    // The card fetch came before the card: a bearer token there; the send follows the card.
    expect(seen.at(-1)!.apiKey).toBe(KEY);
    expect(seen.at(-1)!.authorization).toBeNull();
  });

  it('{ apiKey } without a header takes the card’s header too', async () => {
    const agent = countedAgent();
    running = await startAuthServer(
      { authenticate: apiKeys({ header: 'X-Agent-Key', keys: [{ token: KEY, principal: 'billing' }] }) },
      { agent: agent.agent },
    );
    const client = await A2AClient.fromCardUrl(running.url, { credentials: { apiKey: KEY } });
    await client.send('hello');
    expect(agent.runs.get('billing')).toBe(1);
  });

  it('is a bearer token for an HTTP bearer scheme, and where the card says nothing', async () => {
    const agent = await bearerServer();
    const seen: Seen[] = [];
    const fromCard = await A2AClient.fromCardUrl(running!.url, {
      credentials: { token: GOOD },
      fetch: watchingFetch(seen),
    });
    await fromCard.send('one');
    const bare = A2AClient.fromEndpoint(running!.url, {
      credentials: { token: GOOD },
      fetch: watchingFetch(seen),
    });
    await bare.send('two');
    expect(agent.runs.get('alice')).toBe(2);
    for (const s of seen) expect(s.authorization).toBe(`Bearer ${GOOD}`);
  });

  it('is refused for a card whose schemes no single header can satisfy', async () => {
    await bearerServer();
    const card = (await A2AClient.fromCardUrl(running!.url)).card!;
    const mtlsOnly = {
      ...card,
      securitySchemes: { mtls: { mtlsSecurityScheme: {} } },
      securityRequirements: [{ schemes: { mtls: { list: [] } } }],
    };
    let err: unknown;
    try {
      A2AClient.fromCard(mtlsOnly, { credentials: { token: GOOD } });
    } catch (e) {
      err = e;
    }
    expect((err as ClientError).code).toBe('NO_USABLE_SECURITY_SCHEME');
    expect((err as Error).message).toContain('mtls');
    expect(inspect(err)).not.toContain(GOOD);
  });
});

describe('a provider, refreshed once after a 401', () => {
  it('resends a keyed send with the fresh credential, the same key and messageId; the agent runs once', async () => {
    const agent = await bearerServer();
    const seen: Seen[] = [];
    const asked: CredentialRequest[] = [];
    const client = await A2AClient.fromCardUrl(running!.url, {
      credentials: rotatingProvider(asked),
      fetch: watchingFetch(seen),
    });
    expect(client.peerHonoursKeys).toBe(true);
    seen.length = 0;
    asked.length = 0;
    const sent = await client.send('hello');
    expect('task' in sent && sent.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(seen.map((s) => s.authorization)).toEqual([`Bearer ${OLD}`, `Bearer ${GOOD}`]);
    const [first, second] = seen.map((s) => messageOf(s.body));
    expect(first!.metadata?.['a2a-rust.com/idempotency-key']).toBeTypeOf('string');
    expect(second!.metadata?.['a2a-rust.com/idempotency-key']).toBe(
      first!.metadata?.['a2a-rust.com/idempotency-key'],
    );
    expect(second!.messageId).toBe(first!.messageId);
    expect(asked.map((a) => [a.refresh, a.refused])).toEqual([
      [false, undefined],
      [true, { bearer: OLD }],
    ]);
    expect(agent.total()).toBe(1);
  });

  it('resends an unkeyed send too (the server refused before reading the body), and it runs once', async () => {
    const agent = await bearerServer();
    const seen: Seen[] = [];
    const client = A2AClient.fromEndpoint(running!.url, {
      keys: 'off',
      credentials: rotatingProvider([]),
      fetch: watchingFetch(seen),
    });
    await client.send('hello');
    expect(messageOf(seen[0]!.body).metadata).toBeUndefined();
    expect(seen.length).toBe(2);
    expect(agent.total()).toBe(1);
  });

  it('refreshes with retry: false as well: a 401 proves nothing ran, so the resend is not a retry', async () => {
    const agent = await bearerServer();
    const client = A2AClient.fromEndpoint(running!.url, { retry: false, credentials: rotatingProvider([]) });
    await client.send('hello');
    expect(agent.total()).toBe(1);
  });

  it('a second 401 is final: UNAUTHENTICATED after two requests, the provider asked twice', async () => {
    const agent = await bearerServer();
    const seen: Seen[] = [];
    const asked: CredentialRequest[] = [];
    const client = A2AClient.fromEndpoint(running!.url, {
      credentials: (r) => {
        asked.push(r);
        return { bearer: OLD };
      },
      fetch: watchingFetch(seen),
    });
    const err = await client.send('hello').catch((e: unknown) => e);
    expect((err as A2AError).reason).toBe('UNAUTHENTICATED');
    expect(seen.length).toBe(2);
    expect(asked.length).toBe(2);
    expect(agent.total()).toBe(0);
  });

  it('a 403 is final at once: one request, no refresh, PERMISSION_DENIED', async () => {
    const agent = await bearerServer();
    const seen: Seen[] = [];
    const asked: CredentialRequest[] = [];
    const client = A2AClient.fromEndpoint(running!.url, {
      tenant: 'elsewhere',
      credentials: (r) => {
        asked.push(r);
        return { bearer: GOOD };
      },
      fetch: watchingFetch(seen),
    });
    const err = await client.send('hello').catch((e: unknown) => e);
    expect((err as A2AError).reason).toBe('PERMISSION_DENIED');
    expect(seen.length).toBe(1);
    expect(asked.map((a) => a.refresh)).toEqual([false]);
    expect(agent.total()).toBe(0);
  });

  it('refreshes a stream that opened on a 401, over HTTP+JSON too', async () => {
    const agent = await bearerServer();
    const client = A2AClient.fromEndpoint(running!.url, { credentials: rotatingProvider([]) });
    const events = [];
    for await (const ev of client.sendStream('hello')) events.push(ev);
    expect(events.length).toBeGreaterThan(0);
    const rest = A2AClient.fromEndpoint(running!.url, {
      binding: 'HTTP+JSON',
      credentials: rotatingProvider([]),
    });
    await rest.send('hello');
    expect(agent.total()).toBe(2);
  });

  it('GetExtendedAgentCard refreshes after a 401 too', async () => {
    running = await startAuthServer(
      { authenticate: bearerTokens({ tokens: [{ token: GOOD, principal: 'alice' }] }) },
      {
        card: {
          name: 'auth-test',
          description: 'extended',
          capabilities: { streaming: true, extendedAgentCard: true },
        },
        extendedCard: (ctx) => ({
          name: `extended for ${ctx.principal ?? 'nobody'}`,
          description: 'extended',
          version: '1.0.0',
          supportedInterfaces: [],
          capabilities: {},
          defaultInputModes: ['text/plain'],
          defaultOutputModes: ['text/plain'],
          skills: [],
        }),
      },
    );
    const asked: CredentialRequest[] = [];
    const client = await A2AClient.fromCardUrl(running.url, { credentials: rotatingProvider(asked) });
    asked.length = 0;
    const card = await client.getExtendedCard();
    expect(card.name).toBe('extended for alice');
    expect(asked.map((a) => a.refresh)).toEqual([false, true]);
  });

  it('the card fetch sends the credential and refreshes it after a 401 (a card behind authentication)', async () => {
    await bearerServer();
    const card = await (await fetch(`${running!.url}/.well-known/agent-card.json`)).text();
    const guarded = createServer((req, res) => {
      if (req.headers.authorization !== `Bearer ${GOOD}`) {
        res.writeHead(401, { 'WWW-Authenticate': 'Bearer realm="a2a"' }).end();
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(card);
    });
    await new Promise<void>((r) => guarded.listen(0, '127.0.0.1', r));
    try {
      const asked: CredentialRequest[] = [];
      const base = `http://127.0.0.1:${(guarded.address() as AddressInfo).port}`;
      const client = await A2AClient.fromCardUrl(base, { credentials: rotatingProvider(asked) });
      expect(client.card?.name).toBe('auth-test');
      expect(asked.map((a) => a.refresh)).toEqual([false, true]);
      const refused = await A2AClient.fromCardUrl(base, { credentials: { bearer: OLD } }).catch(
        (e: unknown) => e,
      );
      expect((refused as A2AError).reason).toBe('UNAUTHENTICATED');
    } finally {
      await new Promise<void>((r) => guarded.close(() => r()));
    }
  });

  it('a provider that throws ends the call with CREDENTIAL_UNAVAILABLE, nothing sent', async () => {
    const agent = await bearerServer();
    const seen: Seen[] = [];
    const client = A2AClient.fromEndpoint(running!.url, {
      credentials: () => Promise.reject(new TypeError('the vault is sealed')),
      fetch: watchingFetch(seen),
    });
    const err = await client.send('hello').catch((e: unknown) => e);
    expect((err as ClientError).code).toBe('CREDENTIAL_UNAVAILABLE');
    expect((err as Error).message).toContain('TypeError');
    expect(seen.length).toBe(0);
    expect(agent.total()).toBe(0);
  });
});

describe('no credential in a log line, an error or describeError', () => {
  it('holds across refusals, refreshes, bad credentials and failed providers', async () => {
    await bearerServer();
    const lines: string[] = [];
    const errors: unknown[] = [];
    const logger = keepingLogger(lines);
    const catching = (p: Promise<unknown>) => p.catch((e: unknown) => void errors.push(e));
    const url = running!.url;
    await catching(A2AClient.fromEndpoint(url, { logger, credentials: { bearer: OLD } }).send('a'));
    await catching(A2AClient.fromEndpoint(url, { logger, credentials: () => ({ bearer: OLD }) }).send('b'));
    await catching(
      A2AClient.fromEndpoint(url, { logger, tenant: 'elsewhere', credentials: { bearer: GOOD } }).send('c'),
    );
    await catching(
      A2AClient.fromEndpoint(url, { logger, credentials: () => ({ bearer: `${GOOD}\n` }) }).getTask('x'),
    );
    await catching(A2AClient.fromEndpoint(url, { logger, credentials: { token: GOOD } }).getTask('missing'));
    await catching(A2AClient.fromEndpoint(url, { logger, credentials: { apiKey: GOOD } }).getTask('x'));
    expect(errors.length).toBe(6);
    const text = [
      ...lines,
      ...errors.flatMap((e) => [describeError(e), inspect(e, { depth: 8 }), JSON.stringify(e)]),
    ].join('\n');
    expect(text).not.toContain(GOOD);
    expect(text).not.toContain(OLD);
  });
});
