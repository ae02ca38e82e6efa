/**
 * `a2a-once/server/node`: serves a fetch handler on node:http. Requests are built lazily (`node-request.ts`) and
 * our responses are written from their parts (`write-response.ts`), so no undici Request or Response is created
 * on the hot path; any other Response a handler returns is streamed as usual.
 */
import { createServer, type Server } from 'node:http';
import { Server as NetServer, type AddressInfo } from 'node:net';
import type { FetchHandler } from '../http/fetch-handler.js';
import type { ServerLogger } from '../observability/logger.js';
import { createRequestListener } from './request-listener.js';
import { InFlight } from './in-flight.js';

export { createRequestListener } from './request-listener.js';

/** Where to listen. */
export interface ListenOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** Where a failure of the handler itself is logged (default: JSON lines on stderr). */
  logger?: ServerLogger;
}

/** A listening server. */
export interface NodeServerHandle {
  /** `http://HOST:PORT` */
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  /**
   * Stops accepting connections at once; requests in flight, and requests that still arrive on open keep-alive
   * connections, get up to `graceMs` (default 2 s) to be answered, each on a connection then closed, before every
   * connection left is destroyed (ADR 0088). Idle connections are left to the caller: call
   * `server.closeIdleConnections()` once its drain is over (`a2a-once serve` does, after `A2AServer.close`), or
   * they go at the grace's end. Resolves when the last connection is closed.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/** Default of `close`'s `graceMs`. */
const DEFAULT_CLOSE_GRACE_MS = 2000;

/** Serves `fetch` on node:http. */
export async function serveNode(fetch: FetchHandler, options: ListenOptions = {}): Promise<NodeServerHandle> {
  const host = options.host ?? '127.0.0.1';
  const listener = createRequestListener(fetch, options.logger);
  const inFlight = new InFlight();
  const server = createServer(inFlight.around(listener));
  // Keep-alive above typical load-balancer idle timeouts, so proxies never reuse a socket we just closed.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    server,
    close: (closeOptions) =>
      new Promise<void>((resolve) => {
        inFlight.closing(server);
        // net.Server's close, not http.Server's: the latter also closes idle connections at once (Node 19+).
        NetServer.prototype.close.call(server, () => resolve());
        // Idle keep-alive connections stay until the caller's drain is done (`server.closeIdleConnections()`) or
        // the grace ends: closing one while its client writes a request on it would cut that request mid-way.
        // What is still open after the grace is ended, so shutdown cannot hang on a subscriber.
        setTimeout(
          () => server.closeAllConnections(),
          closeOptions?.graceMs ?? DEFAULT_CLOSE_GRACE_MS,
        ).unref();
      }),
  };
}
