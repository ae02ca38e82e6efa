/**
 * Options of the HTTP layer (both bindings, the card route, limits, who may call).
 */
import type { Authenticator } from '../auth/authenticator.js';
import { resolveRequestAuth, type AuthenticateHook, type RequestAuth } from '../auth/request-auth.js';

/** What the HTTP layer can be told. */
export interface HttpOptions {
  /** Path of the JSON-RPC endpoint (default `/`). */
  jsonRpcPath?: string;
  /** Largest request body accepted; larger gets 413 (default 4 MiB). */
  maxBodyBytes?: number;
  /**
   * Who may call (docs/guides/security.md, ADR 0075). A ready authenticator (`bearerTokens`, `apiKeys`,
   * `jwtBearer`, `anyOf`): every request must carry a credential it accepts (else 401 with a challenge), gets
   * the principal it names (tasks and keys are scoped to it) and may use only the tenants it grants (else 403);
   * the card declares its schemes (ADR 0076). Or the bare hook: return the principal (no tenant restriction),
   * `undefined` for an anonymous caller, or throw an `UnauthenticatedError` to refuse it (401).
   */
  authenticate?: Authenticator | AuthenticateHook;
  /** Base URL the card advertises; default: the origin the card was requested on. */
  publicBaseUrl?: string;
  /** `Cache-Control: max-age` of the agent card, in seconds (default 300). */
  cardMaxAgeSeconds?: number;
  /** Interval of SSE keep-alive comments, in ms (default 15 s; 0 disables). */
  sseKeepAliveMs?: number;
  /**
   * The HTTP status of a request body declared with a type that is not JSON (ADR 0058): 400, as A2A v1.0.1's
   * error table gives `ContentTypeNotSupportedError` (default), or 415, as v1.0.0's did. REST answers with it;
   * JSON-RPC answers 200 for 400 (its errors travel in the envelope) and 415 for 415.
   */
  refusedContentTypeStatus?: 400 | 415;
  /** Path of the liveness probe, answered before authentication (default `/healthz`; `false`: off; ADR 0089). */
  healthPath?: string | false;
  /** Path of the readiness probe, answered before authentication (default `/readyz`; `false`: off; ADR 0089). */
  readyPath?: string | false;
}

/** HttpOptions with defaults applied. */
export interface ResolvedHttpOptions {
  readonly jsonRpcPath: string;
  readonly maxBodyBytes: number;
  readonly authenticate: HttpOptions['authenticate'];
  /** `authenticate`, resolved. */
  readonly auth: RequestAuth | undefined;
  /** The ready authenticator the cards declare (ADR 0076); undefined with the bare hook or none. */
  readonly cardAuthenticator: Authenticator | undefined;
  readonly publicBaseUrl: string | undefined;
  readonly cardMaxAgeSeconds: number;
  readonly sseKeepAliveMs: number;
  readonly refusedContentTypeStatus: 400 | 415;
  readonly healthPath: string | false;
  readonly readyPath: string | false;
  /** The older protocol versions served besides 1.0 (`A2AServerOptions.compat`, docs/guides/v03-peers.md). */
  readonly compat: readonly CompatVersion[];
}

/** An older A2A version a server can serve besides 1.0. */
export type CompatVersion = '0.3';

function refusedStatus(s: HttpOptions['refusedContentTypeStatus']): 400 | 415 {
  if (s === undefined || s === 400 || s === 415) return s ?? 400;
  throw new RangeError('http.refusedContentTypeStatus must be 400 or 415');
}

function probePath(name: string, p: string | false | undefined, fallback: string): string | false {
  if (p === undefined) return fallback;
  if (p === false || (typeof p === 'string' && p.startsWith('/'))) return p;
  throw new RangeError(`http.${name} must be a path starting with / or false`);
}

/** Applies defaults. */
export function resolveHttpOptions(
  o: HttpOptions = {},
  compat: readonly CompatVersion[] = [],
): ResolvedHttpOptions {
  for (const v of compat)
    if (v !== '0.3') throw new RangeError(`compat: unknown version ${String(v)} (this server can add '0.3')`);
  const auth = resolveRequestAuth(o.authenticate);
  return {
    jsonRpcPath: o.jsonRpcPath ?? '/',
    maxBodyBytes: o.maxBodyBytes ?? 4 * 1024 * 1024,
    authenticate: o.authenticate,
    auth,
    cardAuthenticator: auth?.kind === 'authenticator' ? auth.authenticator : undefined,
    publicBaseUrl: o.publicBaseUrl,
    cardMaxAgeSeconds: o.cardMaxAgeSeconds ?? 300,
    sseKeepAliveMs: o.sseKeepAliveMs ?? 15_000,
    refusedContentTypeStatus: refusedStatus(o.refusedContentTypeStatus),
    healthPath: probePath('healthPath', o.healthPath, '/healthz'),
    readyPath: probePath('readyPath', o.readyPath, '/readyz'),
    compat: [...new Set(compat)],
  };
}
