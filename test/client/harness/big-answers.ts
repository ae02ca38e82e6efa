/**
 * A real HTTP server on 127.0.0.1 that answers with bodies far larger than a client should hold: a JSON body
 * (a card, or a JSON-RPC / REST answer) of `size` bytes, streamed in chunks as fast as the socket drains, with or
 * without a Content-Length, and an SSE stream whose one event is that large. It counts the bytes it managed to
 * write, so a test can see that the client stopped reading instead of taking it all in.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What to answer, by path. */
export interface BigAnswer {
  /** The body's size in bytes (the padding is ASCII, so characters = bytes). */
  readonly size: number;
  /** Declare a Content-Length (otherwise the body is chunked). */
  readonly contentLength: boolean;
  /** `json` (default): one JSON document whose one string member is the padding; `sse`: one event of it. */
  readonly shape?: 'json' | 'sse';
  /** Status (default 200). */
  readonly status?: number;
}

/** A running server. */
export interface BigAnswerServer {
  readonly url: string;
  /** Bytes written so far for each path (the last request to it). */
  written(path: string): number;
  /** Requests seen, by path. */
  requests(path: string): number;
  close(): Promise<void>;
}

const CHUNK = Buffer.alloc(64 * 1024, 0x61); // 'a'

/** The framing around the padding, so the whole body is valid JSON (or one SSE event) of exactly `size` bytes. */
function framing(shape: 'json' | 'sse'): { head: string; tail: string } {
  return shape === 'sse'
    ? { head: 'data: {"jsonrpc":"2.0","id":1,"result":{"pad":"', tail: '"}}\n\n' }
    : { head: '{"jsonrpc":"2.0","id":1,"result":{"pad":"', tail: '"}}' };
}

async function writeAll(res: ServerResponse, answer: BigAnswer, count: (n: number) => void): Promise<void> {
  const { head, tail } = framing(answer.shape ?? 'json');
  let padding = answer.size - head.length - tail.length;
  const write = (b: Buffer | string): Promise<boolean> =>
    new Promise((resolve) => {
      if (res.destroyed || res.writableEnded) return resolve(false);
      const ok = res.write(b, () => undefined);
      count(typeof b === 'string' ? Buffer.byteLength(b) : b.length);
      if (ok) return resolve(true);
      const done = (): void => {
        res.off('drain', done);
        res.off('close', done);
        resolve(!res.destroyed);
      };
      res.once('drain', done);
      res.once('close', done);
    });
  if (!(await write(head))) return;
  while (padding > 0) {
    const n = Math.min(padding, CHUNK.length);
    if (!(await write(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n)))) return;
    padding -= n;
  }
  if (await write(tail)) res.end();
}

/** Starts a server answering each path in `answers`; any other path is a 404. */
export async function startBigAnswerServer(answers: Record<string, BigAnswer>): Promise<BigAnswerServer> {
  const written = new Map<string, number>();
  const requests = new Map<string, number>();
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '/').split('?')[0]!;
    requests.set(path, (requests.get(path) ?? 0) + 1);
    req.resume();
    const answer = answers[path];
    if (answer === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not here');
      return;
    }
    written.set(path, 0);
    const headers: Record<string, string> = {
      'content-type': answer.shape === 'sse' ? 'text/event-stream' : 'application/json',
    };
    if (answer.contentLength) headers['content-length'] = String(answer.size);
    res.writeHead(answer.status ?? 200, headers);
    res.on('error', () => undefined);
    void writeAll(res, answer, (n) => written.set(path, (written.get(path) ?? 0) + n));
  };
  const server: Server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    written: (path) => written.get(path) ?? 0,
    requests: (path) => requests.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
