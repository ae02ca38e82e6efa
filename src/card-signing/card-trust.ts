/**
 * Which keys a verifier trusts (A2A §8.4.3 "or from a trusted key store"): always chosen by the verifier — a
 * JWKS, a list of public keys, or a JWKS URL the caller names — never taken from the card or from a JWS header
 * (`jku`, `jwk`, `x5u`, `x5c` are not read), since a card that names its own trust root proves nothing (ADR 0073).
 */
import type { CryptoKey, JSONWebKeySet, JWK, KeyObject } from 'jose';
import { publicPartOf } from './signing-keys.js';

/** A trusted key: a public JWK with its `kid` (an `exp`, in seconds since the epoch, ends its use), or a key object. */
export type TrustedKey =
  | JWK
  | {
      readonly kid: string;
      readonly key: CryptoKey | KeyObject;
      /** The only algorithm this key verifies; default: the one the signature names, if it fits the key. */
      readonly alg?: string;
      /** After this instant the key no longer verifies (A2A §8.4.3: expired keys MUST NOT be used). */
      readonly notAfter?: Date;
    };

/** `fetch` as the JWKS download needs it. */
export type JwksFetch = (input: string, init?: RequestInit) => Promise<Response>;

/** What a verifier trusts. Give `keys`, `jwks` or `jwksUrl` (any together). */
export interface CardTrust {
  /** Trusted public keys. */
  readonly keys?: readonly TrustedKey[];
  /** A JWKS object (`{ keys: [...] }`). */
  readonly jwks?: JSONWebKeySet;
  /** A JWKS URL the caller names and trusts; fetched once per verification. */
  readonly jwksUrl?: string;
  /** `fetch` for `jwksUrl` (default: the global one). */
  readonly fetch?: JwksFetch;
  /**
   * Whether a signature over the `a2a-js` form (what `@a2a-js/sdk` and a2a-python sign) is accepted when the
   * card's `a2a-spec` form differs (default true). That form leaves out empty values, so such a signature does
   * not cover them (ADR 0072).
   */
  readonly acceptA2aJsForm?: boolean;
  /** The clock for key expiry (default `Date.now`). */
  readonly now?: () => number;
}

/** A trusted key in the shape the verifier uses. */
export interface TrustEntry {
  readonly kid: string;
  readonly jwk?: JWK;
  readonly key?: CryptoKey | KeyObject;
  readonly alg?: string;
  /** Epoch ms after which the key is expired. */
  readonly notAfterMs?: number;
}

/** The trust root could not be read (the JWKS URL failed or is not a JWKS). */
export class TrustUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TrustUnavailableError';
  }
}

function fromJwk(jwk: JWK): TrustEntry | undefined {
  if (typeof jwk.kid !== 'string' || jwk.kid.length === 0 || jwk.kty === 'oct') return undefined;
  const exp = (jwk as { exp?: unknown }).exp;
  return {
    kid: jwk.kid,
    jwk: publicPartOf(jwk),
    ...(typeof jwk.alg === 'string' ? { alg: jwk.alg } : {}),
    ...(typeof exp === 'number' ? { notAfterMs: exp * 1000 } : {}),
  };
}

function fromTrusted(k: TrustedKey): TrustEntry | undefined {
  if ('key' in k && typeof k.key === 'object' && k.key !== null && !('kty' in k)) {
    const o = k as { kid: string; key: CryptoKey | KeyObject; alg?: string; notAfter?: Date };
    return {
      kid: o.kid,
      key: o.key,
      ...(o.alg !== undefined ? { alg: o.alg } : {}),
      ...(o.notAfter !== undefined ? { notAfterMs: o.notAfter.getTime() } : {}),
    };
  }
  return fromJwk(k);
}

function entriesOfJwks(jwks: unknown, where: string): TrustEntry[] {
  const keys = (jwks as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new TrustUnavailableError(`${where} is not a JWKS (no "keys" list)`);
  return keys.flatMap((k) => {
    const e = typeof k === 'object' && k !== null ? fromJwk(k as JWK) : undefined;
    return e ? [e] : [];
  });
}

/** The trusted keys, the JWKS URL fetched if one is named. Throws `TrustUnavailableError`. */
export async function trustedKeys(trust: CardTrust, signal?: AbortSignal): Promise<TrustEntry[]> {
  const entries: TrustEntry[] = [];
  for (const k of trust.keys ?? []) {
    const e = fromTrusted(k);
    if (e) entries.push(e);
  }
  if (trust.jwks !== undefined) entries.push(...entriesOfJwks(trust.jwks, 'the trusted JWKS'));
  if (trust.jwksUrl !== undefined) {
    const fetchImpl = trust.fetch ?? ((input, init) => fetch(input, init));
    let body: unknown;
    try {
      const res = await fetchImpl(trust.jwksUrl, {
        headers: { Accept: 'application/jwk-set+json, application/json' },
        redirect: 'error',
        ...(signal ? { signal } : {}),
      });
      if (!res.ok)
        throw new TrustUnavailableError(`the JWKS at ${trust.jwksUrl} answered HTTP ${res.status}`);
      body = await res.json();
    } catch (err) {
      if (err instanceof TrustUnavailableError) throw err;
      throw new TrustUnavailableError(
        `the JWKS at ${trust.jwksUrl} could not be read: ${(err as Error).message}`,
        {
          cause: err,
        },
      );
    }
    entries.push(...entriesOfJwks(body, `the document at ${trust.jwksUrl}`));
  }
  return entries;
}
