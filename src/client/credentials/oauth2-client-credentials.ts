/**
 * `oauth2ClientCredentials`: a credential provider for the OAuth 2 client-credentials grant (RFC 6749 §4.4,
 * ADR 0080). The access token is cached until it expires, less a skew; one token request is in flight at a time
 * and every call that needs a token meanwhile waits for it; a 401 from the agent drops the token it refused and
 * fetches another. The client secret goes to the token endpoint only, over TLS or to a loopback address, and
 * never into an error message: a failure is a `ClientError` `TOKEN_REQUEST_FAILED` that names the endpoint, the
 * HTTP status and the RFC 6749 §5.2 `error` code.
 */
import { readBoundedText } from '../transport/bounded-body.js';
import { ClientError } from '../transport/client-error.js';
import { exchange, tryParseJson } from '../transport/http-exchange.js';
import type { FetchLike } from '../transport/transport.js';
import { sameCredential } from './credential.js';
import type { CredentialProvider } from './credential.js';

/** Options of `oauth2ClientCredentials`. */
export interface OAuth2ClientCredentialsOptions {
  /** The token endpoint: `https:`, or `http:` to a loopback address (RFC 6749 §2.3.1 requires TLS). */
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Scopes asked for (`scope`, space-separated on the wire). */
  readonly scope?: string | readonly string[];
  /** The `audience` parameter some providers require (Auth0, for one); not part of RFC 6749. */
  readonly audience?: string;
  /**
   * How the client authenticates to the token endpoint: `basic` (default, `client_secret_basic`, the method
   * RFC 6749 §2.3.1 requires servers to support) or `body` (`client_secret_post`).
   */
  readonly clientAuthentication?: 'basic' | 'body';
  /** How long before its expiry a token is renewed, in ms. Default 30,000. */
  readonly expirySkewMs?: number;
  /** Time limit of one token request, in ms. Default 10,000. */
  readonly timeoutMs?: number;
  /** `fetch` for the token endpoint (default: the global one). */
  readonly fetch?: FetchLike;
}

/** The most a token answer may hold. */
const MAX_TOKEN_ANSWER_BYTES = 64 * 1024;

/** An RFC 6749 §5.2 `error` code (a restricted ASCII set). */
const ERROR_CODE = /^[\x20\x21\x23-\x5b\x5d-\x7e]{1,64}$/;

/** An access token that can travel in a header (see `credential.ts`). */
const TOKEN_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

interface HeldToken {
  readonly token: string;
  /** Epoch ms after which it is not handed out (Infinity: until a 401). */
  readonly renewAt: number;
}

interface TokenRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly secret: string;
  readonly skewMs: number;
  readonly timeoutMs: number;
  readonly fetch: FetchLike;
}

function refuse(why: string): never {
  throw new ClientError('INVALID_ARGUMENT', `oauth2ClientCredentials: ${why}`);
}

function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** RFC 6749 §2.3.1: the id and secret are form-encoded before they are joined for Basic. */
function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

function tokenRequestOf(o: OAuth2ClientCredentialsOptions): TokenRequest {
  let url: URL;
  try {
    url = new URL(o.tokenUrl);
  } catch {
    return refuse('tokenUrl must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname)))
    refuse('tokenUrl must be https (or http to a loopback address): the client secret travels to it');
  if (typeof o.clientId !== 'string' || o.clientId === '') refuse('clientId must be a non-empty string');
  if (typeof o.clientSecret !== 'string' || o.clientSecret === '')
    refuse('clientSecret must be a non-empty string (it is not shown)');
  const skewMs = o.expirySkewMs ?? 30_000;
  const timeoutMs = o.timeoutMs ?? 10_000;
  if (!Number.isFinite(skewMs) || skewMs < 0) refuse('expirySkewMs must be a non-negative number');
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) refuse('timeoutMs must be a positive number');
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  const scopes = typeof o.scope === 'string' ? [o.scope] : (o.scope ?? []);
  if (scopes.length > 0) form.set('scope', scopes.join(' '));
  if (o.audience !== undefined) form.set('audience', o.audience);
  const headers: Record<string, string> = {
    'Content-Type': 'application/x-www-form-urlencoded',
    Accept: 'application/json',
  };
  if ((o.clientAuthentication ?? 'basic') === 'basic') {
    headers.Authorization = `Basic ${base64(`${formEncode(o.clientId)}:${formEncode(o.clientSecret)}`)}`;
  } else {
    form.set('client_id', o.clientId);
    form.set('client_secret', o.clientSecret);
  }
  return {
    url: url.toString(),
    headers,
    body: form.toString(),
    secret: o.clientSecret,
    skewMs,
    timeoutMs,
    fetch: o.fetch ?? ((input, init) => fetch(input, init)),
  };
}

function failed(
  req: TokenRequest,
  why: string,
  details: { httpStatus?: number; cause?: unknown } = {},
): ClientError {
  return new ClientError(
    'TOKEN_REQUEST_FAILED',
    `the OAuth 2 token endpoint ${req.url} ${why}; nothing was sent to the agent`,
    details,
  );
}

/** The RFC 6749 §5.2 error code of a refusal, when it is one and repeats nothing secret. */
function errorCodeOf(json: unknown, secret: string): string | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const code = (json as { error?: unknown }).error;
  return typeof code === 'string' && ERROR_CODE.test(code) && !code.includes(secret) ? code : undefined;
}

/** One token request (RFC 6749 §4.4.2), its answer checked (§5.1). */
async function requestToken(req: TokenRequest): Promise<HeldToken> {
  const sentAt = Date.now();
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException('timeout', 'TimeoutError')),
    req.timeoutMs,
  );
  const scope = { signal: controller.signal, translate: (err: unknown) => err };
  let status: number;
  let text: string;
  try {
    const res = await exchange(
      req.fetch,
      { url: req.url, method: 'POST', headers: req.headers, body: req.body },
      scope,
    );
    status = res.status;
    text = await readBoundedText(res, scope, MAX_TOKEN_ANSWER_BYTES, () => undefined);
  } catch (err) {
    const why = controller.signal.aborted
      ? `did not answer within ${req.timeoutMs} ms`
      : err instanceof ClientError && err.code === 'REDIRECT_REFUSED'
        ? 'answered with a redirect, which is not followed (the client secret would go elsewhere)'
        : 'could not be reached or its answer did not arrive';
    throw failed(req, why, { cause: err });
  } finally {
    clearTimeout(timer);
  }
  const json = tryParseJson(text);
  if (status < 200 || status > 299) {
    const code = errorCodeOf(json, req.secret);
    throw failed(req, `refused the client credentials (HTTP ${status}${code ? `, error ${code}` : ''})`, {
      httpStatus: status,
    });
  }
  const answer = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
  const token = answer.access_token;
  if (typeof token !== 'string' || !TOKEN_VALUE.test(token))
    throw failed(req, 'answered without an access_token that can be sent in a header', {
      httpStatus: status,
    });
  if (typeof answer.token_type !== 'string' || answer.token_type.toLowerCase() !== 'bearer')
    throw failed(req, 'answered with a token_type other than Bearer', { httpStatus: status });
  const expiresIn = answer.expires_in;
  if (typeof expiresIn !== 'number' || !Number.isFinite(expiresIn) || expiresIn <= 0)
    return { token, renewAt: Infinity }; // no lifetime given: kept until the agent refuses it
  const lifetimeMs = expiresIn * 1000;
  // Renewed `skew` early, but never sooner than half its life, so a short-lived token is still used.
  return { token, renewAt: sentAt + Math.max(lifetimeMs - req.skewMs, lifetimeMs / 2) };
}

/** `promise`, or the reason `signal` fires first; the shared request goes on for the others who wait. */
async function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) throw signal.reason as Error;
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * A provider of OAuth 2 access tokens by the client-credentials grant, for the client's `credentials` option.
 * Share one provider between clients of the same token endpoint to share its token.
 * @example
 * const credentials = oauth2ClientCredentials({
 *   tokenUrl: 'https://auth.example.com/oauth/token',
 *   clientId: 'billing-agent',
 *   clientSecret: process.env.CLIENT_SECRET!,
 *   scope: 'a2a:send',
 * });
 * const client = await A2AClient.fromCardUrl('https://agent.example.com', { credentials });
 */
export function oauth2ClientCredentials(options: OAuth2ClientCredentialsOptions): CredentialProvider {
  const req = tokenRequestOf(options);
  let held: HeldToken | undefined;
  let inFlight: Promise<HeldToken> | undefined;
  return async (request) => {
    // A refresh drops the token only if it is the one refused: a call refused with an older token, after
    // another call already renewed it, gets the new one without another request.
    if (request.refresh && held !== undefined) {
      if (request.refused === undefined || sameCredential(request.refused, { bearer: held.token }))
        held = undefined;
    }
    if (held !== undefined && Date.now() < held.renewAt) return { bearer: held.token };
    if (inFlight === undefined) {
      inFlight = requestToken(req)
        .then((t) => {
          held = t;
          return t;
        })
        .finally(() => {
          inFlight = undefined;
        });
      // Every waiter may have given up by the time it fails: the failure is theirs, not the process's.
      inFlight.catch(() => undefined);
    }
    const token = await untilAborted(inFlight, request.signal);
    return { bearer: token.token };
  };
}
