/**
 * `jwtBearer`: JWT bearer tokens (RFC 9068 style) verified with `jose` against a JWKS URL or a static key set,
 * with issuer, audience, clock tolerance and an algorithm allow-list (ADR 0077). The principal comes from a claim
 * (default `sub`), the tenants from another (default `tenants`, a string or a list). The remote key set is
 * `jose`'s `createRemoteJWKSet`: fetched once, cached, and fetched again only for a `kid` it does not know, at
 * most once per cooldown, so a flood of tokens with made-up `kid`s never turns into a flood of fetches. A token
 * that verified is taken again without verifying its signature until it expires, for at most a minute by
 * default (ADR 0136).
 */
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  jwtVerify,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import type { SecurityScheme } from '../../protocol/agent-card.js';
import {
  authenticator,
  checkSchemeName,
  requirementOf,
  type Authenticator,
  type Recognition,
} from './authenticator.js';
import { ASYMMETRIC_JWS_ALGORITHMS } from '../../protocol/jws-algorithms.js';
import { authorizationCredentials, looksLikeJws } from './credentials.js';
import { tenantGrantOf } from './tenant-grant.js';
import { VerifiedTokenCache, type VerifiedTokenCacheOptions } from './verified-token-cache.js';

/** Asymmetric algorithms accepted by default: never `none`, never an HMAC (no shared secret is configured). */
export const DEFAULT_JWT_ALGORITHMS: readonly string[] = Object.freeze([...ASYMMETRIC_JWS_ALGORITHMS]);

/** Options of `jwtBearer`. Exactly one of `jwksUrl` and `keys`. */
export interface JwtBearerOptions {
  /** Where the issuer publishes its keys (a JWKS document). */
  readonly jwksUrl?: string | URL;
  /** A static key set, when the keys are known ahead (public keys only). */
  readonly keys?: JSONWebKeySet;
  /** The `iss` a token must carry (one of these). */
  readonly issuer: string | readonly string[];
  /** The `aud` a token must carry (one of these): the identifier of this agent at the issuer. */
  readonly audience: string | readonly string[];
  /** Algorithms accepted (default `DEFAULT_JWT_ALGORITHMS`); `none` and `HS*` are refused at start-up. */
  readonly algorithms?: readonly string[];
  /** Leeway for `exp` and `nbf`, in seconds (default 30). */
  readonly clockToleranceSeconds?: number;
  /** The claim that names the principal (default `sub`); a string. */
  readonly principalClaim?: string;
  /** The claim that lists the tenants (default `tenants`): a string or a list, `*` for all; absent: no tenant. */
  readonly tenantsClaim?: string;
  /** The scheme's name in the card (default `jwt`). */
  readonly scheme?: string;
  /** An OpenID Connect discovery URL: the card then declares `openIdConnectSecurityScheme` with it. */
  readonly openIdConnectUrl?: string;
  /** The scheme's description in the card. */
  readonly description?: string;
  /**
   * Verified tokens remembered, so a caller's next request with the same token skips the signature check (ADR
   * 0136): default on, at most 10,000 tokens, each for at most 60 s and never past its `exp`. `false` verifies
   * every request.
   */
  readonly cache?: VerifiedTokenCacheOptions | false;
  /** The remote key set's timings: fetch timeout, cooldown between refetches, cache age (jose's defaults). */
  readonly jwks?: {
    readonly timeoutMs?: number;
    readonly cooldownMs?: number;
    readonly cacheMaxAgeMs?: number;
  };
}

/** jose's codes for a token that is at fault (401); any other failure is the key set's (503). */
const TOKEN_FAULTS = new Set([
  'ERR_JWT_EXPIRED',
  'ERR_JWT_CLAIM_VALIDATION_FAILED',
  'ERR_JWT_INVALID',
  'ERR_JWS_INVALID',
  'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
  'ERR_JOSE_ALG_NOT_ALLOWED',
  'ERR_JOSE_NOT_SUPPORTED',
  'ERR_JWKS_NO_MATCHING_KEY',
  'ERR_JWKS_MULTIPLE_MATCHING_KEYS',
]);

function checkAlgorithms(algorithms: readonly string[]): string[] {
  if (algorithms.length === 0) throw new RangeError('jwtBearer: algorithms must name at least one algorithm');
  for (const a of algorithms) {
    // `none` accepts unsigned tokens; an HMAC verified with a public key set is the classic key-confusion hole.
    if (a.toLowerCase() === 'none' || /^HS\d+$/i.test(a))
      throw new RangeError(`jwtBearer: algorithm ${a} is not allowed (only asymmetric signatures)`);
  }
  return [...algorithms];
}

function keySource(o: JwtBearerOptions): JWTVerifyGetKey {
  if ((o.jwksUrl === undefined) === (o.keys === undefined))
    throw new RangeError('jwtBearer: give exactly one of jwksUrl and keys');
  if (o.keys !== undefined) {
    if (o.keys.keys.some((k) => k.kty === 'oct' || 'd' in k))
      throw new RangeError('jwtBearer: keys must be public keys (no oct keys, no private parts)');
    return createLocalJWKSet(o.keys);
  }
  const url = new URL(o.jwksUrl!);
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new RangeError('jwtBearer: jwksUrl must be an http(s) URL');
  const t = o.jwks ?? {};
  return createRemoteJWKSet(url, {
    ...(t.timeoutMs !== undefined ? { timeoutDuration: t.timeoutMs } : {}),
    ...(t.cooldownMs !== undefined ? { cooldownDuration: t.cooldownMs } : {}),
    ...(t.cacheMaxAgeMs !== undefined ? { cacheMaxAge: t.cacheMaxAgeMs } : {}),
  });
}

function nonEmpty(v: string | readonly string[], what: string): string | string[] {
  const list = typeof v === 'string' ? [v] : [...v];
  if (list.length === 0 || list.some((s) => typeof s !== 'string' || s === ''))
    throw new RangeError(`jwtBearer: ${what} must be a non-empty string or list of them`);
  return typeof v === 'string' ? v : list;
}

/**
 * JWT bearer tokens. It judges only bearer credentials shaped like a JWS (three base64url parts); an opaque
 * token is left to the next authenticator of an `anyOf`. A JWT that does not verify is refused (401).
 * @example
 * const auth = jwtBearer({ jwksUrl: 'https://id.example/.well-known/jwks.json', issuer: 'https://id.example',
 *   audience: 'https://agent.example' });
 */
export function jwtBearer(options: JwtBearerOptions): Authenticator {
  const scheme = checkSchemeName(options.scheme ?? 'jwt', 'jwtBearer');
  const getKey = keySource(options);
  const verify = {
    issuer: nonEmpty(options.issuer, 'issuer'),
    audience: nonEmpty(options.audience, 'audience'),
    algorithms: checkAlgorithms(options.algorithms ?? DEFAULT_JWT_ALGORITHMS),
    clockTolerance: options.clockToleranceSeconds ?? 30,
  };
  const verified = options.cache === false ? undefined : new VerifiedTokenCache(options.cache);
  const principalClaim = options.principalClaim ?? 'sub';
  const tenantsClaim = options.tenantsClaim ?? 'tenants';
  const description = options.description ?? 'A JWT bearer token from the issuer this agent trusts';
  const card: SecurityScheme =
    options.openIdConnectUrl !== undefined
      ? { openIdConnectSecurityScheme: { openIdConnectUrl: options.openIdConnectUrl, description } }
      : { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT', description } };
  return authenticator({
    securitySchemes: { [scheme]: card },
    securityRequirements: [requirementOf(scheme)],
    challenges: ['Bearer realm="a2a"'],
    recognise(request) {
      const token = authorizationCredentials(request, 'Bearer');
      if (token === undefined || !looksLikeJws(token)) return { kind: 'absent' };
      const known = verified?.get(token);
      if (known !== undefined) return { kind: 'accepted', identity: known };
      return jwtVerify(token, getKey, verify).then(({ payload }) => {
        const recognition = identityOf(payload, principalClaim, tenantsClaim);
        if (recognition.kind === 'accepted' && verified) {
          const exp =
            typeof payload.exp === 'number' ? (payload.exp + verify.clockTolerance) * 1000 : undefined;
          verified.set(token, recognition.identity, exp);
        }
        return recognition;
      }, failure);
    },
  });
}

function identityOf(payload: JWTPayload, principalClaim: string, tenantsClaim: string): Recognition {
  const principal = payload[principalClaim];
  if (typeof principal !== 'string' || principal === '')
    return { kind: 'refused', detail: `the token has no ${principalClaim} claim naming a principal` };
  const raw = payload[tenantsClaim];
  const tenants = typeof raw === 'string' ? [raw] : raw;
  try {
    return { kind: 'accepted', identity: { principal, tenants: tenantGrantOf(tenants, 'token') } };
  } catch {
    return {
      kind: 'refused',
      detail: `the token's ${tenantsClaim} claim is not a string or list of strings`,
    };
  }
}

function failure(err: unknown): Recognition {
  if (err instanceof errors.JOSEError && TOKEN_FAULTS.has(err.code))
    return { kind: 'refused', detail: `the token did not verify (${err.code})` };
  return { kind: 'unavailable', detail: 'the key set that verifies tokens could not be fetched' };
}
