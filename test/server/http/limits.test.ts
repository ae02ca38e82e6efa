/**
 * Request limits over real sockets (ADR 0004, ADR 0031): bodies over the limit get a clear 413 (default 4 MiB,
 * configurable), declared or chunked; malformed JSON gets -32700; the server keeps serving afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { A2AServer } from '../../../src/server/index.js';
import { serveNode, type NodeServerHandle } from '../../../src/server/node/index.js';
import { expectRestError, rpcJson, uid, userMsg } from '../../helpers/http.js';
import { builtinServer } from './fixtures.js';
import { closeNode } from '../../helpers/close-node.js';

const MiB = 1024 * 1024;
const byDefault: A2AServer = builtinServer('echo');
const small: A2AServer = builtinServer('echo', { http: { maxBodyBytes: 1024 } });
let def: NodeServerHandle;
let tiny: NodeServerHandle;

beforeAll(async () => {
  def = await serveNode(byDefault.fetch, { port: 0 });
  tiny = await serveNode(small.fetch, { port: 0 });
});

afterAll(async () => {
  await Promise.all([closeNode(def), closeNode(tiny)]);
  await Promise.all([byDefault.close(), small.close()]);
});

function sendBody(text: string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: { message: userMsg(uid(), text) },
  });
}

function post(
  base: string,
  path: string,
  body: BodyInit,
  headers: Record<string, string> = {},
  timeoutMs = 10_000,
): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...headers },
    body,
    duplex: 'half',
    signal: AbortSignal.timeout(timeoutMs),
  } as RequestInit);
}

/** A body streamed in 64 KiB chunks without Content-Length (chunked transfer encoding). */
function chunked(total: number): ReadableStream<Uint8Array> {
  let sent = 0;
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) {
        controller.close();
        return;
      }
      const n = Math.min(chunk.length, total - sent);
      controller.enqueue(chunk.subarray(0, n));
      sent += n;
    },
  });
}

async function stillServes(base: string): Promise<void> {
  const res = await post(base, '/', sendBody('still alive'));
  expect(res.status).toBe(200);
  const env = await rpcJson(res);
  expect(env.error).toBeUndefined();
}

describe('body size limit', () => {
  it('default limit: a JSON-RPC body over 4 MiB gets HTTP 413 with a JSON-RPC error', async () => {
    const res = await post(def.url, '/', sendBody('x'.repeat(4 * MiB + 10)));
    expect(res.status).toBe(413);
    const env = await rpcJson(res);
    expect(env.jsonrpc).toBe('2.0');
    expect(env.error?.message).toMatch(/4194304/);
    expect((env.error?.data as { reason: string }[])[0]?.reason).toBe('PAYLOAD_TOO_LARGE');
    await stillServes(def.url);
  });

  it('default limit: a body just under 4 MiB is served', async () => {
    const res = await post(def.url, '/', sendBody('y'.repeat(4 * MiB - 1024)));
    expect(res.status).toBe(200);
    const env = await rpcJson(res);
    expect(env.error).toBeUndefined();
    expect((env.result as { task: { status: { state: string } } }).task.status.state).toBe(
      'TASK_STATE_COMPLETED',
    );
  });

  it('default limit: a REST body over 4 MiB gets 413 RESOURCE_EXHAUSTED', async () => {
    const res = await post(
      def.url,
      '/message:send',
      JSON.stringify({ message: userMsg(uid(), 'z'.repeat(4 * MiB)) }),
    );
    await expectRestError(res, 413, 'RESOURCE_EXHAUSTED', 'PAYLOAD_TOO_LARGE', 'a2a-once');
  });

  it('a configured limit applies (maxBodyBytes: 1024)', async () => {
    const over = await post(tiny.url, '/', sendBody('a'.repeat(2000)));
    expect(over.status).toBe(413);
    await over.body?.cancel();
    const under = await post(tiny.url, '/', sendBody('a'.repeat(100)));
    expect(under.status).toBe(200);
    await under.body?.cancel();
  });

  it('a chunked upload (no Content-Length) over the limit always gets a clean 413, never a reset', async () => {
    // Node's fetch (undici) is what @a2a-js/sdk uses; it must see the 413, not "other side closed".
    const outcomes: string[] = [];
    for (const path of ['/', '/message:send']) {
      for (let i = 0; i < 5; i++) {
        try {
          const res = await post(tiny.url, path, chunked(MiB), {}, 2000);
          await res.body?.cancel();
          outcomes.push(String(res.status));
        } catch (err) {
          outcomes.push(`${(err as Error).message}: ${String((err as { cause?: Error }).cause?.message)}`);
        }
      }
    }
    expect(outcomes).toEqual(Array<string>(10).fill('413'));
    await stillServes(tiny.url);
  });
});

describe('malformed JSON over a socket', () => {
  it('JSON-RPC: -32700 with id null, then the server keeps serving', async () => {
    for (const body of ['{', '{"jsonrpc":"2.0",', 'not json at all', '\u0000\u0001']) {
      const res = await post(def.url, '/', body);
      expect(res.status).toBe(200);
      const env = await rpcJson(res);
      expect(env.error?.code).toBe(-32700);
      expect(env.id).toBeNull();
    }
    await stillServes(def.url);
  });

  it('REST: 400 INVALID_ARGUMENT PARSE_ERROR', async () => {
    const res = await post(def.url, '/message:send', '{"message":');
    await expectRestError(res, 400, 'INVALID_ARGUMENT', 'PARSE_ERROR');
    await stillServes(def.url);
  });

  it('a body nested 100,000 deep: -32700 / 400 PARSE_ERROR naming the limit, then the server keeps serving', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const msg = JSON.stringify(userMsg(uid(), 'deep'));
    const rpcBody = `{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"message":${msg.slice(0, -1)},"metadata":{"d":${deep}}}}}`;
    const res = await post(def.url, '/', rpcBody);
    expect(res.status).toBe(200);
    const env = await rpcJson(res);
    expect(env.error?.code).toBe(-32700);
    expect(env.error?.message).toMatch(/nested deeper than 64 levels/);
    const rest = await post(def.url, '/message:send', `{"message":${msg},"x":${deep}}`);
    await expectRestError(rest, 400, 'INVALID_ARGUMENT', 'PARSE_ERROR');
    await stillServes(def.url);
  });

  it('invalid UTF-8 in a JSON body does not crash the server', async () => {
    const res = await post(def.url, '/', new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]));
    expect(res.status).toBeLessThan(500);
    await res.body?.cancel();
    await stillServes(def.url);
  });
});
