/**
 * The link between a parent and its child agent for the delegation process tests: an HTTP relay on 127.0.0.1
 * that keeps the `Host` header (so the child's card names the relay and the parent's every call goes through
 * it) and can make the first SendMessage answers go astray: `drop` forwards the request, lets the child do the
 * work and closes the parent's connection when the answer starts; `hold` forwards it and never answers (the
 * parent waits until its process dies). Every SendMessage body is kept, to count sends and read their keys.
 *
 * Given a second upstream (`reads`), the link routes like a balancer without sticky sessions at its worst: every
 * SendMessage goes to the first replica, every other call (GetTask polls, cancels, the card) to the second.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LEASE_RENEWAL_HEADER } from '../../src/delegation/delegation-wire.js';

/** A running link. */
export interface DelegationLink {
  readonly url: string;
  /** Bodies of the SendMessage requests that went through, in order. */
  readonly sends: string[];
  /** How many calls carrying the delegation renewal header went through (to the read replica, when there is one). */
  readonly renewals: () => number;
  /** The next `n` SendMessage answers are dropped (`drop`) or withheld (`hold`). */
  fail(mode: 'drop' | 'hold', n?: number): void;
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Starts a link to `upstream` (an origin such as `http://127.0.0.1:1234`); with `reads`, every call but
 * SendMessage goes there instead.
 */
export async function startLink(upstream: string, reads?: string): Promise<DelegationLink> {
  const sendTarget = new URL(upstream);
  const readTarget = new URL(reads ?? upstream);
  const sends: string[] = [];
  let renewals = 0;
  let mode: 'drop' | 'hold' = 'drop';
  let failing = 0;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      const text = body.toString('utf8');
      const isSend = text.includes('"method":"SendMessage"');
      if (isSend) sends.push(text);
      if (req.headers[LEASE_RENEWAL_HEADER] !== undefined) renewals++;
      const fault = isSend && failing > 0 ? (failing--, mode) : undefined;
      const target = isSend ? sendTarget : readTarget;
      const out = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, 'content-length': String(body.length) },
        },
        (up) => {
          if (fault === 'drop') {
            up.resume();
            up.once('end', () => req.socket.destroy());
            return;
          }
          if (fault === 'hold') {
            up.resume();
            return;
          }
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      out.once('error', () => res.destroy());
      out.end(body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    sends,
    renewals: () => renewals,
    fail(m, n = 1) {
      mode = m;
      failing = n;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
