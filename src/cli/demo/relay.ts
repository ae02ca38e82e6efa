/**
 * The flaky link in front of each demo agent: an HTTP relay on 127.0.0.1 that loses the answer of the FIRST
 * attempt of every send. It forwards the request, lets the agent do the work, reads the whole answer, and then cuts
 * the caller's connection instead of passing the answer on: the caller cannot tell whether anything ran, which is
 * the failure the demo is about. Every later attempt of the same send goes through untouched, and so does every
 * other call (cards, GetTask polls, cancels).
 *
 * A send is named by its messageId and, when it carries one, its idempotency key: a caller that resends "as-is"
 * presents the same name, which is how the relay counts retries. It keeps the `Host` header, so an agent's card
 * names the relay and a caller that reads it keeps coming through the link.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keyOf } from '../../idempotency/index.js';
import type { Message } from '../../protocol/model.js';

/** What a relay saw happen, for the live view. */
export type RelayEvent = 'dropped' | 'retry' | 'unreachable';

/** What a relay counted. */
export interface RelayCounts {
  /** Distinct sends (messageId + key) that came through. */
  readonly sends: number;
  /** SendMessage requests beyond the first of each send: the callers' retries. */
  readonly retries: number;
  /** Answers cut after the agent had the request. */
  readonly dropped: number;
  /** Requests the agent could not be reached for, or died holding (its process was down). */
  readonly unreachable: number;
}

/** A running relay. */
export interface Relay {
  readonly url: string;
  /** Points the relay at its agent (an origin such as `http://127.0.0.1:1234`); until then it answers 503. */
  connect(upstream: string): void;
  counts(): RelayCounts;
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The name of the send `body` carries, or undefined when the request is not a send. JSON-RPC `SendMessage` and
 * `SendStreamingMessage`, and the HTTP+JSON `message:send` / `message:stream` routes, are sends.
 */
export function sendNameOf(path: string, body: Buffer): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined; // not JSON: not a send this relay can name; it passes through
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const rpc = parsed as { method?: unknown; params?: { message?: Message } };
  const isRpcSend = rpc.method === 'SendMessage' || rpc.method === 'SendStreamingMessage';
  const isRestSend = /\/message:(send|stream)$/.test(path.split('?')[0] ?? '');
  const message = isRpcSend
    ? rpc.params?.message
    : isRestSend
      ? (parsed as { message?: Message }).message
      : undefined;
  if (message === undefined || typeof message.messageId !== 'string') return undefined;
  let key: string | undefined;
  try {
    key = keyOf(message);
  } catch {
    key = undefined; // a malformed key is the agent's to refuse; the relay names the send by its messageId
  }
  return key === undefined ? message.messageId : `${message.messageId} ${key}`;
}

/**
 * Starts a relay; `connect` names its agent. It listens first so that a parent agent can be told its children's
 * addresses when it starts, before the children have ports. `onEvent` hears what it does.
 */
export async function startRelay(onEvent: (e: RelayEvent) => void = () => {}): Promise<Relay> {
  let target: URL | undefined;
  const seen = new Set<string>();
  let sends = 0;
  let attempts = 0;
  let dropped = 0;
  let unreachable = 0;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      if (target === undefined) {
        res
          .writeHead(503, { 'content-type': 'text/plain' })
          .end('the agent behind this link has not started yet');
        return;
      }
      const name = req.method === 'POST' ? sendNameOf(req.url ?? '/', body) : undefined;
      let first = false;
      if (name !== undefined) {
        attempts++;
        first = !seen.has(name);
        if (first) {
          seen.add(name);
          sends++;
        } else onEvent('retry');
      }
      const out = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, 'content-length': String(body.length) },
        },
        (up) => {
          up.once('error', () => res.destroy());
          if (first) {
            // The agent has the request and answers; the caller never hears it.
            up.resume();
            up.once('end', () => {
              dropped++;
              onEvent('dropped');
              req.socket.destroy();
            });
            return;
          }
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      out.once('error', (err: NodeJS.ErrnoException) => {
        unreachable++;
        onEvent('unreachable');
        // No agent listening (its process is down): answered as a load balancer does, 503 with a Retry-After, so
        // callers wait for the restart. A process that died holding the request: the caller's connection is cut.
        if (err.code === 'ECONNREFUSED' && !res.headersSent) {
          res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '1' }).end('the agent is down');
        } else res.destroy();
      });
      out.end(body);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connect: (upstream) => {
      target = new URL(upstream);
    },
    counts: () => ({ sends, retries: attempts - sends, dropped, unreachable }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
