/**
 * A fault-injecting HTTP proxy on 127.0.0.1 for the client's failure tests (docs/semantics.md §7). Requests pass
 * through unless a queued fault matches; each fault applies to a given number of matching requests:
 * - `drop-response`: forward, and close the client's connection as soon as the peer's response starts (the
 *   peer did the work; the client never learns the outcome);
 * - `reset-request`: forward half the request body, then reset both connections (the peer never gets the whole
 *   request; the client cannot tell);
 * - `delay`: forward, and hold the response for `ms` (past the client's timeout);
 * - `refuse`: answer 429/503 with `Retry-After` without forwarding (a bare body unless `body` is given, such as
 *   an A2A error that says nothing ran);
 * - `bad-gateway`: forward, let the peer finish, and answer 502 (or 504);
 * - `replace`: forward, let the peer finish, and answer `status` with `body` instead (a server or a proxy that
 *   failed after the work was done: an INTERNAL or UNAVAILABLE error, or a bare 503);
 * - `cut-stream`: forward, relay `afterEvents` SSE events, then close both connections;
 * - `stream-error`: forward, relay `afterEvents` SSE events, then send `event` as one more SSE event (an error
 *   the peer, or something in front of it, reports mid-stream) and end the stream.
 * Every request is logged (method, path, body) so tests can count resends.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A fault to inject. */
export type Fault =
  | { readonly kind: 'drop-response' }
  | { readonly kind: 'reset-request' }
  | { readonly kind: 'delay'; readonly ms: number }
  | {
      readonly kind: 'refuse';
      readonly status?: number;
      readonly retryAfter?: string;
      readonly body?: (r: SeenRequest) => string;
    }
  | { readonly kind: 'bad-gateway'; readonly status?: 502 | 504 }
  | {
      readonly kind: 'replace';
      readonly status: number;
      /** A JSON body (sent as `application/json`); omitted: a bare `text/plain` body. */
      readonly body?: (r: SeenRequest) => string;
      readonly retryAfter?: string;
    }
  | { readonly kind: 'cut-stream'; readonly afterEvents: number }
  | {
      readonly kind: 'stream-error';
      readonly afterEvents: number;
      readonly event: (r: SeenRequest) => string;
    };

/** A request the proxy saw. */
export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly body: string;
  /** The request's headers, names in lower case. */
  readonly headers: IncomingHttpHeaders;
}

interface Rule {
  readonly fault: Fault;
  readonly match: (r: SeenRequest) => boolean;
  remaining: number;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

function relayHeaders(h: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
  return out;
}

const REST_PATHS: Record<string, RegExp> = {
  SendMessage: /\/message:send$/,
  SendStreamingMessage: /\/message:stream$/,
  GetTask: /\/tasks\/[^/:?]+(\?.*)?$/,
  SubscribeToTask: /\/tasks\/[^/]+:subscribe$/,
  CancelTask: /\/tasks\/[^/]+:cancel$/,
};

/** Matches an operation: a JSON-RPC request by method, a REST request by its route (A2A v1.0). */
export function isCall(name: string): (r: SeenRequest) => boolean {
  const rest = REST_PATHS[name];
  return (r) => r.body.includes(`"method":"${name}"`) || (rest !== undefined && rest.test(r.path));
}

/** The running proxy. */
export class FaultProxy {
  /** Every request seen, in order. */
  readonly requests: SeenRequest[] = [];
  private readonly rules: Rule[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly upstream: URL,
  ) {}

  /** Starts a proxy to `upstream` (an origin such as `http://127.0.0.1:1234`). */
  static async start(upstream: string): Promise<FaultProxy> {
    const holder: { proxy?: FaultProxy } = {};
    const server = createServer((req, res) => void holder.proxy!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    holder.proxy = new FaultProxy(server, `http://127.0.0.1:${port}`, new URL(upstream));
    return holder.proxy;
  }

  /** Queues a fault for the next `times` requests that `match` (default: every request). */
  inject(fault: Fault, match: (r: SeenRequest) => boolean = () => true, times = 1): void {
    this.rules.push({ fault, match, remaining: times });
  }

  /** Drops queued faults and the request log. */
  reset(): void {
    this.rules.length = 0;
    this.requests.length = 0;
  }

  /** How many logged requests match. */
  count(match: (r: SeenRequest) => boolean): number {
    return this.requests.filter(match).length;
  }

  /** Rewrites a URL of the upstream to go through the proxy. */
  via(url: string): string {
    const u = new URL(url);
    const p = new URL(this.url);
    u.host = p.host;
    return u.toString();
  }

  /** Stops the proxy and closes every connection. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const seen: SeenRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      body: body.toString('utf8'),
      headers: req.headers,
    };
    this.requests.push(seen);
    const rule = this.rules.find((r) => r.remaining > 0 && r.match(seen));
    if (rule) rule.remaining--;
    const fault = rule?.fault;
    if (fault?.kind === 'refuse') {
      res.writeHead(fault.status ?? 503, {
        'retry-after': fault.retryAfter ?? '1',
        'content-type': fault.body ? 'application/json' : 'text/plain',
      });
      res.end(fault.body ? fault.body(seen) : 'try later');
      return;
    }
    const up = httpRequest(
      {
        host: this.upstream.hostname,
        port: this.upstream.port,
        method: seen.method,
        path: seen.path,
        headers: { ...req.headers, host: this.upstream.host, 'content-length': String(body.length) },
      },
      (upRes) => this.relay(upRes, res, fault, seen),
    );
    up.on('error', () => res.socket?.destroy());
    if (fault?.kind === 'reset-request') {
      up.write(body.subarray(0, Math.floor(body.length / 2)));
      setTimeout(() => {
        up.destroy();
        res.socket?.resetAndDestroy();
      }, 20);
      return;
    }
    up.end(body);
  }

  private relay(
    upRes: IncomingMessage,
    res: ServerResponse,
    fault: Fault | undefined,
    seen: SeenRequest,
  ): void {
    const status = upRes.statusCode ?? 502;
    const headers = relayHeaders(upRes.headers);
    switch (fault?.kind) {
      case 'drop-response':
        upRes.resume();
        res.socket?.destroy();
        return;
      case 'bad-gateway':
        upRes.resume();
        upRes.on('end', () => {
          res.writeHead(fault.status ?? 502, { 'content-type': 'text/plain' });
          res.end('bad gateway');
        });
        return;
      case 'replace':
        upRes.resume();
        upRes.on('end', () => {
          const headers: Record<string, string> = {
            'content-type': fault.body ? 'application/json' : 'text/plain',
          };
          if (fault.retryAfter !== undefined) headers['retry-after'] = fault.retryAfter;
          res.writeHead(fault.status, headers);
          res.end(fault.body ? fault.body(seen) : 'service unavailable');
        });
        return;
      case 'delay': {
        const parts: Buffer[] = [];
        upRes.on('data', (c: Buffer) => parts.push(c));
        upRes.on('end', () => {
          setTimeout(() => {
            if (res.destroyed) return;
            res.writeHead(status, headers);
            res.end(Buffer.concat(parts));
          }, fault.ms);
        });
        return;
      }
      case 'cut-stream':
      case 'stream-error': {
        res.writeHead(status, headers);
        let events = 0;
        let tail = '';
        const cutNow = (): void => {
          upRes.destroy();
          if (fault.kind === 'stream-error') res.end(`data: ${fault.event(seen)}\n\n`);
          else res.socket?.destroy();
        };
        if (fault.afterEvents === 0) {
          res.flushHeaders();
          setTimeout(cutNow, 20);
          return;
        }
        upRes.on('data', (c: Buffer) => {
          let text = c.toString('utf8');
          while (text.length > 0) {
            const joined = tail + text;
            const at = joined.indexOf('\n\n');
            if (at === -1) {
              res.write(text);
              tail = joined.slice(-1);
              return;
            }
            const upto = at + 2 - tail.length;
            res.write(text.slice(0, upto));
            text = text.slice(upto);
            tail = '';
            if (++events >= fault.afterEvents) {
              // Let the written events reach the client before the connection goes.
              setTimeout(cutNow, 20);
              upRes.pause();
              return;
            }
          }
        });
        upRes.on('end', () => res.end());
        return;
      }
      case 'refuse':
      case 'reset-request':
      case undefined:
        res.writeHead(status, headers);
        upRes.pipe(res);
    }
  }
}
