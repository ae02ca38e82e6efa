/**
 * Media types across the A2A v1.0.0 / v1.0.1 split (ADR 0042): JSON answers carry `application/a2a+json` only
 * when the request's `Accept` names it (REST, its error bodies, the card; JSON-RPC always answers
 * `application/json`), either JSON type is read on input, a body of any other declared type is refused with
 * ContentTypeNotSupported as A2A v1.0.1's table says (REST 400, JSON-RPC -32005 with HTTP 200; 415 on both when
 * the host keeps v1.0.0's table, ADR 0058), streams stay `text/event-stream`, and a message *part* refused for
 * its media type gets the same v1.0.1 mapping.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ContentTypeNotSupportedError } from '../../../src/protocol/errors.js';
import type { SendMessageResponse } from '../../../src/protocol/model.js';
import type { SendMessageRequest } from '../../../src/protocol/requests.js';
import { A2ARequestHandler } from '../../../src/server/a2a-request-handler.js';
import type { CallContext } from '../../../src/server/call-context.js';
import { createFetchHandler } from '../../../src/server/http/fetch-handler.js';
import { responseMediaType } from '../../../src/server/http/wire/media-type.js';
import { serveNode } from '../../../src/server/node/index.js';
import {
  BASE,
  expectRestError,
  expectRpcError,
  readSse,
  rpcJson,
  uid,
  userMsg,
  V1,
} from '../../helpers/http.js';
import { builtinServer, inlineServer } from './fixtures.js';
import { closeNode } from '../../helpers/close-node.js';

const JSON_TYPE = 'application/json';
const A2A_TYPE = 'application/a2a+json';

let runs = 0;
const counted = inlineServer(async (ctx) => {
  runs += 1;
  await ctx.complete('done');
});
const tck = builtinServer('tck');
/** A host that keeps A2A v1.0.0's table for a refused request media type. */
const v100 = builtinServer('tck', { http: { refusedContentTypeStatus: 415 } });

afterAll(async () => {
  await Promise.all([counted.close(), tck.close(), v100.close()]);
});

/** Every `Accept` a peer of either version sends, and the type of our JSON answer to it. */
const ACCEPTS: readonly [string | undefined, string][] = [
  [undefined, JSON_TYPE],
  ['*/*', JSON_TYPE],
  [JSON_TYPE, JSON_TYPE],
  [A2A_TYPE, A2A_TYPE],
  [`${A2A_TYPE}, ${JSON_TYPE}`, A2A_TYPE],
  [`${JSON_TYPE}, ${A2A_TYPE}`, A2A_TYPE],
  [`${A2A_TYPE};q=0.9, ${JSON_TYPE};q=0.8`, A2A_TYPE],
  [`${JSON_TYPE}, ${A2A_TYPE};q=0.5`, JSON_TYPE],
  [`${JSON_TYPE};q=0.5, ${A2A_TYPE};q=0.5`, A2A_TYPE],
  [`${A2A_TYPE};q=0`, JSON_TYPE],
  [`${A2A_TYPE};q=0.5, */*`, JSON_TYPE],
  [`${A2A_TYPE};q=0.5, application/*;q=0.4`, A2A_TYPE],
  ['APPLICATION/A2A+JSON', A2A_TYPE],
  [`${A2A_TYPE} ; q=1.0 ; charset=utf-8`, A2A_TYPE],
  [`${A2A_TYPE};q=bogus, ${JSON_TYPE}`, JSON_TYPE],
  ['text/html', JSON_TYPE],
  ['application/*', JSON_TYPE],
];

/** The Content-Types a JSON body may be declared with (undefined: no header at all). */
const JSON_CONTENT_TYPES: readonly (string | undefined)[] = [
  undefined,
  JSON_TYPE,
  A2A_TYPE,
  `${JSON_TYPE}; charset=utf-8`,
  'Application/A2A+JSON; charset=UTF-8',
];

/** Declared types that are not JSON: refused. `text/plain;charset=UTF-8` is what `fetch` sends for a bare string. */
const NOT_JSON = [
  'text/plain',
  'text/plain;charset=UTF-8',
  'application/xml',
  'application/x-www-form-urlencoded',
];

function headersWith(accept: string | undefined, extra: Record<string, string> = {}): Record<string, string> {
  return { ...V1, ...(accept === undefined ? {} : { Accept: accept }), ...extra };
}

/** A POST whose body is bytes, so `fetch` adds no Content-Type of its own when `contentType` is undefined. */
function post(path: string, body: unknown, contentType: string | undefined, accept?: string): Request {
  const headers = headersWith(accept, contentType === undefined ? {} : { 'Content-Type': contentType });
  const req = new Request(`${BASE}${path}`, {
    method: 'POST',
    headers,
    body: new TextEncoder().encode(JSON.stringify(body)),
  });
  if (contentType === undefined && req.headers.has('content-type')) throw new Error('fetch added a type');
  return req;
}

function rpcBody(method: string, params: unknown): Record<string, unknown> {
  return { jsonrpc: '2.0', id: 1, method, params };
}

describe('responseMediaType', () => {
  it.each(ACCEPTS)('Accept %s answers %s', (accept, want) => {
    expect(responseMediaType(accept ?? null)).toBe(want);
  });
});

describe('REST answers follow Accept', () => {
  it.each(ACCEPTS)('Accept %s: a send answers %s', async (accept, want) => {
    const res = await tck.fetch(post('/message:send', { message: userMsg(uid()) }, JSON_TYPE, accept));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(want);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['task']);
  });

  it.each(ACCEPTS)('Accept %s: a GET answers %s', async (accept, want) => {
    const res = await tck.fetch(new Request(`${BASE}/tasks`, { headers: headersWith(accept) }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(want);
    await res.body?.cancel();
  });

  it.each(ACCEPTS)('Accept %s: an error body is %s', async (accept, want) => {
    const res = await tck.fetch(new Request(`${BASE}/tasks/no-such-task`, { headers: headersWith(accept) }));
    expect(res.headers.get('content-type')).toBe(want);
    await expectRestError(res, 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
  });

  it('an unknown route and a wrong verb answer in the negotiated type too', async () => {
    const nf = await tck.fetch(
      new Request(`${BASE}/no/such/route/here/at/all`, { headers: headersWith(A2A_TYPE) }),
    );
    expect(nf.status).toBe(404);
    expect(nf.headers.get('content-type')).toBe(A2A_TYPE);
    await nf.body?.cancel();
    const na = await tck.fetch(
      new Request(`${BASE}/message:send`, { method: 'DELETE', headers: headersWith(undefined) }),
    );
    expect(na.status).toBe(405);
    expect(na.headers.get('content-type')).toBe(JSON_TYPE);
    await na.body?.cancel();
  });

  it('a stream stays text/event-stream whatever the Accept', async () => {
    for (const accept of [undefined, A2A_TYPE, JSON_TYPE, 'text/event-stream']) {
      const res = await tck.fetch(
        post('/message:stream', { message: userMsg(uid('tck-stream-001')) }, JSON_TYPE, accept),
      );
      expect(res.status).toBe(200);
      const frames = await readSse(res);
      expect(frames.length).toBeGreaterThan(0);
    }
  });

  it('a stream refused before its first event answers JSON in the negotiated type', async () => {
    const plain = await tck.fetch(
      new Request(`${BASE}/tasks/nope:subscribe`, {
        method: 'POST',
        headers: headersWith('text/event-stream'),
      }),
    );
    expect(plain.headers.get('content-type')).toBe(JSON_TYPE);
    await expectRestError(plain, 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
    const a2a = await tck.fetch(
      new Request(`${BASE}/tasks/nope:subscribe`, {
        method: 'POST',
        headers: headersWith(`text/event-stream, ${A2A_TYPE}`),
      }),
    );
    expect(a2a.headers.get('content-type')).toBe(A2A_TYPE);
    await expectRestError(a2a, 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
  });
});

describe('REST request Content-Type', () => {
  it.each(JSON_CONTENT_TYPES)('Content-Type %s is read', async (ct) => {
    const res = await counted.fetch(post('/message:send', { message: userMsg(uid()) }, ct));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { task: { status: { state: string } } };
    expect(body.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it.each(NOT_JSON)(
    'Content-Type %s is 400 CONTENT_TYPE_NOT_SUPPORTED (v1.0.1), and nothing runs',
    async (ct) => {
      const before = runs;
      const res = await counted.fetch(post('/message:send', { message: userMsg(uid()) }, ct));
      expect(res.headers.get('content-type')).toBe(JSON_TYPE);
      const body = await expectRestError(res, 400, 'INVALID_ARGUMENT', 'CONTENT_TYPE_NOT_SUPPORTED');
      expect(body.error.message).toContain(ct);
      expect(runs).toBe(before);
    },
  );

  it('the refusal follows Accept like every error body', async () => {
    const res = await counted.fetch(
      post('/message:send', { message: userMsg(uid()) }, 'text/plain', A2A_TYPE),
    );
    expect(res.headers.get('content-type')).toBe(A2A_TYPE);
    await expectRestError(res, 400, 'INVALID_ARGUMENT', 'CONTENT_TYPE_NOT_SUPPORTED');
  });

  it.each(NOT_JSON)("Content-Type %s is 415 for a host that keeps v1.0.0's table", async (ct) => {
    const res = await v100.fetch(post('/message:send', { message: userMsg(uid()) }, ct));
    await expectRestError(res, 415, 'INVALID_ARGUMENT', 'CONTENT_TYPE_NOT_SUPPORTED');
  });

  it('a body-less POST (cancel) with a non-JSON Content-Type is refused as well', async () => {
    const res = await tck.fetch(
      new Request(`${BASE}/tasks/nope:cancel`, {
        method: 'POST',
        headers: { ...V1, 'Content-Type': 'text/plain' },
      }),
    );
    await expectRestError(res, 400, 'INVALID_ARGUMENT', 'CONTENT_TYPE_NOT_SUPPORTED');
  });

  it('a GET declares no body: a Content-Type on it is not read, and not refused', async () => {
    const res = await tck.fetch(
      new Request(`${BASE}/tasks`, { headers: { ...V1, 'Content-Type': 'text/plain' } }),
    );
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });

  it('a long declared type is quoted back bounded', async () => {
    const ct = `text/${'x'.repeat(5000)}`;
    const res = await counted.fetch(post('/message:send', { message: userMsg(uid()) }, ct));
    const body = await expectRestError(res, 400, 'INVALID_ARGUMENT', 'CONTENT_TYPE_NOT_SUPPORTED');
    expect(body.error.message.length).toBeLessThan(300);
  });
});

describe('JSON-RPC media types', () => {
  it.each(ACCEPTS)('Accept %s: the answer is application/json (§9, both versions)', async (accept) => {
    const res = await tck.fetch(
      post('/', rpcBody('SendMessage', { message: userMsg(uid()) }), JSON_TYPE, accept),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(JSON_TYPE);
    const env = await rpcJson(res);
    expect(env.result).toHaveProperty('task');
  });

  it.each(ACCEPTS)('Accept %s: an error answer is application/json', async (accept) => {
    const res = await tck.fetch(post('/', rpcBody('GetTask', { id: 'no-such-task' }), JSON_TYPE, accept));
    expect(res.headers.get('content-type')).toBe(JSON_TYPE);
    expectRpcError(await rpcJson(res), -32001, 'TASK_NOT_FOUND');
  });

  it.each(JSON_CONTENT_TYPES)('Content-Type %s is read', async (ct) => {
    const res = await counted.fetch(post('/', rpcBody('SendMessage', { message: userMsg(uid()) }), ct));
    expect(res.status).toBe(200);
    const env = await rpcJson(res);
    expect(env.error).toBeUndefined();
    expect(env.result).toHaveProperty('task');
  });

  it.each(NOT_JSON)('Content-Type %s is -32005 with HTTP 200 (v1.0.1), and nothing runs', async (ct) => {
    const before = runs;
    const res = await counted.fetch(post('/', rpcBody('SendMessage', { message: userMsg(uid()) }), ct));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(JSON_TYPE);
    const env = await rpcJson(res);
    expectRpcError(env, -32005, 'CONTENT_TYPE_NOT_SUPPORTED');
    expect(env.id).toBeNull(); // refused before the body was read
    expect(runs).toBe(before);
  });

  it.each(NOT_JSON)(
    "Content-Type %s is HTTP 415 with -32005 for a host that keeps v1.0.0's table",
    async (ct) => {
      const res = await v100.fetch(post('/', rpcBody('SendMessage', { message: userMsg(uid()) }), ct));
      expect(res.status).toBe(415);
      expectRpcError(await rpcJson(res), -32005, 'CONTENT_TYPE_NOT_SUPPORTED');
    },
  );

  it('a stream stays text/event-stream', async () => {
    const res = await tck.fetch(
      post(
        '/',
        rpcBody('SendStreamingMessage', { message: userMsg(uid('tck-stream-001')) }),
        A2A_TYPE,
        A2A_TYPE,
      ),
    );
    expect(res.status).toBe(200);
    expect((await readSse(res)).length).toBeGreaterThan(0);
  });
});

describe('the agent card', () => {
  const CARD = `${BASE}/.well-known/agent-card.json`;

  it.each(ACCEPTS)('Accept %s: the card is %s, and the answer varies on Accept', async (accept, want) => {
    const res = await tck.fetch(
      new Request(CARD, { headers: accept === undefined ? {} : { Accept: accept } }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(want);
    expect(res.headers.get('vary')).toBe('Accept');
    expect(((await res.json()) as { name: string }).name).toBe('a2a-once TCK agent');
  });

  it('both types carry the same body and ETag; a 304 varies on Accept too', async () => {
    const a = await tck.fetch(new Request(CARD, { headers: { Accept: A2A_TYPE } }));
    const j = await tck.fetch(new Request(CARD));
    expect(await a.text()).toBe(await j.text());
    const etag = a.headers.get('etag')!;
    expect(j.headers.get('etag')).toBe(etag);
    const again = await tck.fetch(
      new Request(CARD, { headers: { 'If-None-Match': etag, Accept: A2A_TYPE } }),
    );
    expect(again.status).toBe(304);
    expect(again.headers.get('vary')).toBe('Accept');
  });
});

/** A handler that refuses every send the way an agent host refuses a part of a type it cannot take. */
class PartTypeRefusingHandler extends A2ARequestHandler {
  override sendMessage(params: SendMessageRequest, ctx: CallContext): Promise<SendMessageResponse> {
    void params;
    void ctx;
    return Promise.reject(
      new ContentTypeNotSupportedError({
        message: 'Part media type image/bmp is not supported',
        metadata: { mediaType: 'image/bmp' },
      }),
    );
  }
}

describe('a message part of an unsupported media type keeps the v1.0.1 mapping', () => {
  const handler = new PartTypeRefusingHandler({
    agent: { execute: async (ctx) => ctx.complete() },
    card: { name: 'parts', description: 'refuses parts', capabilities: {} },
  });
  const fetchHandler = createFetchHandler(handler);

  afterAll(async () => {
    await handler.close();
  });

  it('REST: HTTP 400 INVALID_ARGUMENT CONTENT_TYPE_NOT_SUPPORTED', async () => {
    const res = await fetchHandler(post('/message:send', { message: userMsg(uid()) }, A2A_TYPE));
    await expectRestError(res, 400, 'INVALID_ARGUMENT', 'CONTENT_TYPE_NOT_SUPPORTED');
  });

  it('JSON-RPC: HTTP 200 with -32005 CONTENT_TYPE_NOT_SUPPORTED', async () => {
    const res = await fetchHandler(post('/', rpcBody('SendMessage', { message: userMsg(uid()) }), JSON_TYPE));
    expect(res.status).toBe(200);
    expectRpcError(await rpcJson(res), -32005, 'CONTENT_TYPE_NOT_SUPPORTED');
  });
});

describe('over a real socket', () => {
  it.each([
    ['v1.0.1', tck, 400, 200],
    ['v1.0.0', v100, 415, 415],
  ] as const)(
    'a refusal (%s table) leaves the unread body behind, and the next request on the connection is served',
    async (_t, server, restStatus, rpcStatus) => {
      const node = await serveNode(server.fetch, { port: 0 });
      try {
        for (let i = 0; i < 3; i++) {
          for (const path of ['/message:send', '/']) {
            const refused = await fetch(`${node.url}${path}`, {
              method: 'POST',
              headers: { 'Content-Type': 'text/plain' },
              body: 'x'.repeat(200_000),
            });
            expect(refused.status).toBe(path === '/' ? rpcStatus : restStatus);
            expect(refused.headers.get('content-type')).toBe(JSON_TYPE);
            await refused.text();
          }
          const ok = await fetch(`${node.url}/message:send`, {
            method: 'POST',
            headers: { ...V1, 'Content-Type': JSON_TYPE, Accept: A2A_TYPE },
            body: JSON.stringify({ message: userMsg(uid('tck-complete-task')) }),
          });
          expect(ok.status).toBe(200);
          expect(ok.headers.get('content-type')).toBe(A2A_TYPE);
          await ok.text();
        }
      } finally {
        await closeNode(node);
      }
    },
  );
});
