/**
 * No silent redirects (ADR 0070, docs/guides/retries-and-the-client.md "Redirects"): a send, every other POST and
 * the REST binding's GETs never follow a redirect; the answer is a definite `ClientError` `REDIRECT_REFUSED`
 * naming the `Location`. The card fetch follows at most `cardRedirects` (default 3) redirects, only within the
 * card URL's origin, so the caller's headers never reach another origin.
 *
 * Two origins: a redirecting server on one port, and on another a real `@a2a-js/sdk` agent (which would take the
 * send and run it) behind a logging proxy, which must see no request at all.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { A2AClient, ClientError, fetchAgentCard } from '../../../src/client/index.js';
import type { AgentCard } from '../../../src/protocol/agent-card.js';
import { mintKey } from '../../../src/idempotency/index.js';
import { startJsAgent } from '../harness/a2a-js-server.js';
import type { JsAgent } from '../harness/a2a-js-server.js';
import { FaultProxy } from '../harness/fault-proxy.js';

/** A server whose routes answer redirects (or a card), logging what each request carried. */
interface Redirector {
  readonly url: string;
  readonly seen: { path: string; method: string; headers: IncomingHttpHeaders }[];
  close(): Promise<void>;
}

type Route = { redirect: number; to: string } | { card: AgentCard };

async function startRedirector(
  route: (path: string, self: string) => Route | undefined,
): Promise<Redirector> {
  const seen: Redirector['seen'] = [];
  let self = '';
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    seen.push({ path, method: req.method ?? 'GET', headers: req.headers });
    req.resume();
    const r = route(path, self);
    if (r === undefined) {
      res.writeHead(404).end();
    } else if ('card' in r) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(r.card));
    } else {
      res.writeHead(r.redirect, { location: r.to, 'content-type': 'text/plain' }).end('moved');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  self = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: self,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const SECRET = { 'x-api-key': 'caller-secret-4711' };

let agent: JsAgent;
let elsewhere: FaultProxy;
let redirector: Redirector;

describe('calls never follow a redirect to another origin', () => {
  beforeAll(async () => {
    agent = await startJsAgent();
    elsewhere = await FaultProxy.start(agent.url);
    // Every request is sent on to the same path at the other origin, with a 307 (method and body kept).
    redirector = await startRedirector((path) => ({
      redirect: 307,
      to: elsewhere.via(`${agent.url}${path}`),
    }));
  });
  afterAll(async () => {
    await redirector?.close();
    await elsewhere?.close();
    await agent?.close();
  });
  beforeEach(() => {
    elsewhere.reset();
    redirector.seen.length = 0;
  });

  const jsonRpcPath = () => new URL(agent.jsonRpcUrl).pathname;
  const restPath = () => new URL(agent.restUrl).pathname;

  it('a keyed send answered 307 is refused, naming the Location; the other origin sees nothing', async () => {
    const client = A2AClient.fromEndpoint(`${redirector.url}${jsonRpcPath()}`, {
      peerHonoursKeys: true,
      headers: SECRET,
    });
    const err = await client.send('pay invoice 7', { key: mintKey() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientError);
    expect(err).toMatchObject({
      code: 'REDIRECT_REFUSED',
      httpStatus: 307,
      location: elsewhere.via(`${agent.url}${jsonRpcPath()}`),
    });
    expect((err as Error).message).toContain(elsewhere.url);
    expect(redirector.seen).toHaveLength(1); // a definite refusal: not retried
    expect(elsewhere.requests).toEqual([]);
    expect(agent.executions).toEqual([]);
  });

  it('an unkeyed send, a stream and a push-config create are refused the same way', async () => {
    const client = A2AClient.fromEndpoint(`${redirector.url}${jsonRpcPath()}`, { headers: SECRET });
    await expect(client.send('hello', { key: false })).rejects.toMatchObject({ code: 'REDIRECT_REFUSED' });
    const stream = (async () => {
      for await (const ev of client.sendStream('hello', { key: false })) void ev;
    })();
    await expect(stream).rejects.toMatchObject({ code: 'REDIRECT_REFUSED' });
    await expect(
      client.createPushConfig({ taskId: 't-1', url: 'https://hooks.example.com/a2a' }),
    ).rejects.toMatchObject({ code: 'REDIRECT_REFUSED' });
    expect(elsewhere.requests).toEqual([]);
    expect(agent.executions).toEqual([]);
  });

  it("the REST binding's GETs do not follow either (the credential stays home)", async () => {
    const client = A2AClient.fromEndpoint(`${redirector.url}${restPath()}`, {
      binding: 'HTTP+JSON',
      headers: SECRET,
    });
    const err = await client.getTask('t-1').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'REDIRECT_REFUSED', httpStatus: 307 });
    await expect(client.listTasks()).rejects.toMatchObject({ code: 'REDIRECT_REFUSED' });
    expect(elsewhere.requests).toEqual([]);
  });

  it("a card redirected to another origin is refused, and the caller's headers never go there", async () => {
    const err = await A2AClient.fromCardUrl(redirector.url, { headers: SECRET }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientError);
    expect(err).toMatchObject({ code: 'REDIRECT_REFUSED' });
    expect((err as ClientError).location).toContain(elsewhere.url);
    expect(elsewhere.requests).toEqual([]);
    // `connect` falls back to a bare endpoint only when there is no card; a refused redirect is thrown.
    await expect(A2AClient.connect(redirector.url, { headers: SECRET })).rejects.toMatchObject({
      code: 'REDIRECT_REFUSED',
    });
    expect(elsewhere.requests).toEqual([]);
  });
});

describe('the card fetch follows a few redirects within its origin', () => {
  const card = (url: string): AgentCard => ({
    name: 'moved agent',
    description: 'an agent whose card moved',
    version: '1.0.0',
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  });
  let server: Redirector;
  beforeAll(async () => {
    server = await startRedirector((path, self) => {
      switch (path) {
        case '/.well-known/agent-card.json':
          return { redirect: 301, to: '/cards/v2.json' };
        case '/cards/v2.json':
          return { redirect: 302, to: `${self}/cards/final.json` };
        case '/cards/final.json':
          return { card: card(`${self}/rpc`) };
        case '/loop.json':
          return { redirect: 308, to: '/loop.json' };
        default:
          return undefined;
      }
    });
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.seen.length = 0;
  });

  it('follows two same-origin redirects (default 3), carrying the headers within the origin', async () => {
    const client = await A2AClient.fromCardUrl(server.url, { headers: SECRET });
    expect(client.card?.name).toBe('moved agent');
    expect(server.seen.map((s) => s.path)).toEqual([
      '/.well-known/agent-card.json',
      '/cards/v2.json',
      '/cards/final.json',
    ]);
    for (const s of server.seen) expect(s.headers['x-api-key']).toBe(SECRET['x-api-key']);
  });

  it('cardRedirects bounds the hops: 1 refuses the second, 0 refuses the first', async () => {
    const one = await A2AClient.fromCardUrl(server.url, { cardRedirects: 1 }).catch((e: unknown) => e);
    expect(one).toMatchObject({ code: 'REDIRECT_REFUSED', httpStatus: 302 });
    expect((one as Error).message).toContain('cardRedirects');
    const none = await fetchAgentCard(`${server.url}/.well-known/agent-card.json`, {
      cardRedirects: 0,
    }).catch((e: unknown) => e);
    expect(none).toMatchObject({ code: 'REDIRECT_REFUSED', httpStatus: 301 });
  });

  it('a redirect loop ends after the default 3 hops, with a definite error (not retried)', async () => {
    const err = await fetchAgentCard(`${server.url}/loop.json`).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'REDIRECT_REFUSED', httpStatus: 308 });
    expect(server.seen).toHaveLength(4);
  });

  it('refuses a cardRedirects that is not a non-negative integer', async () => {
    await expect(fetchAgentCard(server.url, { cardRedirects: -1 })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });
});
