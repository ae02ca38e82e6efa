/**
 * The keys a server signs its card with (A2A §8.4.2): a private JWK with a `kid` (and an `alg`, inferred for EC
 * and Ed25519 keys), or a Node `KeyObject` with its `kid` and `alg`. Only asymmetric algorithms: a card
 * signature is checked by strangers, who must not hold the key that makes it. Each key's public half is what the
 * server publishes in its JWKS.
 */
import { createPublicKey, type KeyObject as NodeKeyObject } from 'node:crypto';
import { exportJWK, importJWK, type CryptoKey, type JWK, type KeyObject } from 'jose';
import { ASYMMETRIC_JWS_ALGORITHMS } from '../protocol/jws-algorithms.js';

/** The JWS algorithms a card may be signed with (the asymmetric ones: strangers verify a card). */
export const CARD_SIGNING_ALGORITHMS = ASYMMETRIC_JWS_ALGORITHMS;

/** A key to sign with: a private JWK carrying `kid`, or a private `KeyObject` with its `kid` and `alg`. */
export type CardSigningKey =
  JWK | { readonly kid: string; readonly alg: string; readonly privateKey: KeyObject };

/** A signing key ready to use. */
export interface ResolvedSigningKey {
  readonly kid: string;
  readonly alg: string;
  readonly privateKey: CryptoKey | KeyObject;
  /** The public half, as published in the JWKS (`kid`, `alg`, `use: "sig"`). */
  readonly publicJwk: JWK;
}

/** Why a signing key was refused. */
export type CardSigningKeyErrorCode =
  'PUBLIC_KEY' | 'MISSING_KID' | 'UNSUPPORTED_ALG' | 'DUPLICATE_KID' | 'INVALID_KEY';

/** A signing key that cannot be used, with a string code naming why. */
export class CardSigningKeyError extends Error {
  readonly code: CardSigningKeyErrorCode;
  constructor(code: CardSigningKeyErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CardSigningKeyError';
    this.code = code;
  }
}

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

/** The JWK without its private members (and without `key_ops`, which would say "sign"). */
export function publicPartOf(jwk: JWK): JWK {
  const pub: Record<string, unknown> = { ...jwk };
  for (const m of PRIVATE_MEMBERS) delete pub[m];
  delete pub.key_ops;
  return pub;
}

/** The algorithm a key implies, or undefined when the key alone cannot say (RSA). */
function inferredAlg(jwk: JWK): string | undefined {
  if (jwk.kty === 'EC')
    return ({ 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' } as Record<string, string>)[
      jwk.crv ?? ''
    ];
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') return 'EdDSA';
  return undefined;
}

/** Whether `alg` fits the key type and curve. */
export function algFitsKey(alg: string, jwk: JWK): boolean {
  if (alg.startsWith('ES')) return jwk.kty === 'EC' && inferredAlg(jwk) === alg;
  if (alg === 'EdDSA' || alg === 'Ed25519') return jwk.kty === 'OKP' && jwk.crv === 'Ed25519';
  return jwk.kty === 'RSA' && (alg.startsWith('RS') || alg.startsWith('PS'));
}

function isSupported(alg: string): boolean {
  return (CARD_SIGNING_ALGORITHMS as readonly string[]).includes(alg);
}

/** A key that passed the checks, not yet imported. */
export interface CheckedSigningKey {
  readonly kid: string;
  readonly alg: string;
  readonly source: CardSigningKey;
}

/** Checks one key without importing it; throws `CardSigningKeyError` naming what is wrong. */
export function checkSigningKey(key: CardSigningKey): CheckedSigningKey {
  if ('privateKey' in key) {
    const { kid, alg, privateKey } = key;
    if (typeof kid !== 'string' || kid.length === 0)
      throw new CardSigningKeyError('MISSING_KID', 'a card signing key needs a "kid" (A2A §8.4.2)');
    if (privateKey.type !== 'private')
      throw new CardSigningKeyError('PUBLIC_KEY', `key "${kid}" is not a private key`);
    if (!isSupported(alg))
      throw new CardSigningKeyError(
        'UNSUPPORTED_ALG',
        `key "${kid}": alg "${alg}" is not supported (use one of ${CARD_SIGNING_ALGORITHMS.join(', ')})`,
      );
    return { kid, alg, source: key };
  }
  const jwk = key;
  const kid = jwk.kid;
  if (typeof kid !== 'string' || kid.length === 0)
    throw new CardSigningKeyError('MISSING_KID', 'a card signing key needs a "kid" (A2A §8.4.2)');
  if (jwk.kty === 'oct')
    throw new CardSigningKeyError(
      'UNSUPPORTED_ALG',
      `key "${kid}" is symmetric (kty "oct"): a card signature needs an asymmetric key`,
    );
  if (jwk.d === undefined)
    throw new CardSigningKeyError(
      'PUBLIC_KEY',
      `key "${kid}" is a public key: signing needs the private key ("d")`,
    );
  const alg = jwk.alg ?? inferredAlg(jwk);
  if (alg === undefined)
    throw new CardSigningKeyError(
      'UNSUPPORTED_ALG',
      `key "${kid}" needs an "alg" (one of ${CARD_SIGNING_ALGORITHMS.join(', ')})`,
    );
  if (!isSupported(alg))
    throw new CardSigningKeyError(
      'UNSUPPORTED_ALG',
      `key "${kid}": alg "${alg}" is not supported (use one of ${CARD_SIGNING_ALGORITHMS.join(', ')})`,
    );
  if (!algFitsKey(alg, jwk))
    throw new CardSigningKeyError(
      'UNSUPPORTED_ALG',
      `key "${kid}": alg "${alg}" does not fit a ${jwk.kty} key`,
    );
  return { kid, alg, source: key };
}

/** Checks every key (at least one, `kid`s distinct) without importing them. */
export function checkSigningKeys(keys: readonly CardSigningKey[]): CheckedSigningKey[] {
  if (keys.length === 0) throw new CardSigningKeyError('INVALID_KEY', 'card signing needs at least one key');
  const checked = keys.map(checkSigningKey);
  const seen = new Set<string>();
  for (const k of checked) {
    if (seen.has(k.kid))
      throw new CardSigningKeyError('DUPLICATE_KID', `two card signing keys share kid "${k.kid}"`);
    seen.add(k.kid);
  }
  return checked;
}

/** Checks one key and makes it ready to sign with; throws `CardSigningKeyError` naming what is wrong. */
export async function resolveSigningKey(key: CardSigningKey): Promise<ResolvedSigningKey> {
  const { kid, alg, source } = checkSigningKey(key);
  if ('privateKey' in source) return resolveKeyObject(kid, alg, source.privateKey);
  let privateKey: CryptoKey | KeyObject;
  try {
    privateKey = (await importJWK(source, alg)) as CryptoKey | KeyObject;
  } catch (err) {
    throw new CardSigningKeyError(
      'INVALID_KEY',
      `key "${kid}" cannot be imported: ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  }
  return { kid, alg, privateKey, publicJwk: { ...publicPartOf(source), kid, alg, use: 'sig' } };
}

async function resolveKeyObject(
  kid: string,
  alg: string,
  privateKey: KeyObject,
): Promise<ResolvedSigningKey> {
  const pub = await exportJWK(createPublicKey(privateKey as NodeKeyObject));
  if (!algFitsKey(alg, pub))
    throw new CardSigningKeyError(
      'UNSUPPORTED_ALG',
      `key "${kid}": alg "${alg}" does not fit a ${pub.kty} key`,
    );
  return { kid, alg, privateKey, publicJwk: { ...pub, kid, alg, use: 'sig' } };
}

/** Checks every key (at least one, `kid`s distinct). */
export async function resolveSigningKeys(keys: readonly CardSigningKey[]): Promise<ResolvedSigningKey[]> {
  if (keys.length === 0) throw new CardSigningKeyError('INVALID_KEY', 'card signing needs at least one key');
  const resolved = await Promise.all(keys.map(resolveSigningKey));
  const seen = new Set<string>();
  for (const k of resolved) {
    if (seen.has(k.kid))
      throw new CardSigningKeyError('DUPLICATE_KID', `two card signing keys share kid "${k.kid}"`);
    seen.add(k.kid);
  }
  return resolved;
}
