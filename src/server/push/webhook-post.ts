/**
 * One delivery attempt: a POST to a webhook, connected to the address the guard checked (ADR 0045). The socket
 * goes to `target.address`; the URL's host still travels as the Host header and, for https, as the TLS server
 * name the certificate is verified against. Redirects are not followed: a 3xx could point anywhere, past the
 * guard. The whole attempt (connect, send, answer) is bounded by `timeoutMs`.
 */
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { ResolvedAddress } from './webhook-url-guard.js';
import { bareHost } from './webhook-url-guard.js';

/** What the receiver did with an attempt. */
export type PostResult =
  /** It answered: `status`, and `Retry-After` in ms when it sent one in seconds. */
  | { readonly kind: 'answered'; readonly status: number; readonly retryAfterMs?: number }
  /** No answer: the connection failed, was reset, or the attempt timed out. `error` is a short label. */
  | { readonly kind: 'no-answer'; readonly error: string };

/** The keep-alive agents of one dispatcher, closed with it. */
export interface PostAgents {
  readonly http: http.Agent;
  readonly https: https.Agent;
}

/** Agents that keep connections to busy webhooks open, a few per address at most. */
export function makeAgents(): PostAgents {
  const options = { keepAlive: true, maxSockets: 4, maxFreeSockets: 2, timeout: 30_000 };
  return { http: new http.Agent(options), https: new https.Agent(options) };
}

/** Most bytes of an answer's body read (and thrown away): a receiver's body means nothing to the sender. */
const MAX_ANSWER_BYTES = 64 * 1024;

function retryAfterMs(value: string | string[] | undefined): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || !/^\d{1,7}$/.test(v.trim())) return undefined;
  return Number(v.trim()) * 1000;
}

/** A short, safe label for a socket error: its code, never its message (which may quote the URL). */
function errorLabel(err: unknown): string {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : 'request failed';
}

/** Posts `body` to `url` at `target`, resolving with what happened (never rejecting). */
export function postWebhook(
  url: URL,
  target: ResolvedAddress,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  agents: PostAgents,
): Promise<PostResult> {
  return new Promise<PostResult>((resolve) => {
    const secure = url.protocol === 'https:';
    const host = bareHost(url);
    let settled = false;
    const done = (r: PostResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    let req: http.ClientRequest;
    try {
      const options: https.RequestOptions = {
        method: 'POST',
        host: target.address,
        family: target.family,
        port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
        path: `${url.pathname}${url.search}`,
        headers: { ...headers, host: url.host, 'content-length': String(Buffer.byteLength(body)) },
        agent: secure ? agents.https : agents.http,
        // The certificate is checked against the URL's name, not the address we connect to.
        ...(secure && isIP(host) === 0 ? { servername: host } : {}),
      };
      req = (secure ? https : http).request(options, (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) res.destroy();
        });
        const answered = (): void => {
          const status = res.statusCode ?? 0;
          const after = retryAfterMs(res.headers['retry-after']);
          done({ kind: 'answered', status, ...(after === undefined ? {} : { retryAfterMs: after }) });
        };
        res.on('end', answered);
        // A body cut short still carried a status: that is the answer.
        res.on('close', answered);
        res.on('error', answered);
      });
    } catch (err) {
      // A header the socket layer refuses (a control character in a credential) never leaves the process.
      resolve({ kind: 'no-answer', error: errorLabel(err) });
      return;
    }
    const timer = setTimeout(() => {
      done({ kind: 'no-answer', error: 'timeout' });
      req.destroy();
    }, timeoutMs);
    req.on('error', (err) => done({ kind: 'no-answer', error: errorLabel(err) }));
    req.end(body);
  });
}
