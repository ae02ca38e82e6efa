/**
 * Verifying a card (A2A §8.4.3) against keys the verifier chose (ADR 0073): a signature counts when its
 * protected header names, by `kid`, a trusted key that is not expired, its `alg` is an asymmetric one the key
 * fits, and it verifies over the card's canonical form (`a2a-spec`, or `a2a-js` unless refused; ADR 0072). At
 * least one signature must count. When none does, the error names the most telling reason.
 */
import {
  base64url,
  decodeProtectedHeader,
  flattenedVerify,
  importJWK,
  type CryptoKey,
  type JWK,
  type KeyObject,
} from 'jose';
import { isPlainRecord } from '../protocol/schemas/lenient.js';
import {
  a2aJsSigningObject,
  CANONICAL_FORM_HEADER,
  specSigningObject,
  type CanonicalForm,
} from './canonical-forms.js';
import { trustedKeys, TrustUnavailableError, type CardTrust, type TrustEntry } from './card-trust.js';
import { CanonicalFormError, canonicalJson } from './jcs.js';
import { algFitsKey, CARD_SIGNING_ALGORITHMS } from './signing-keys.js';

/** Why a card did not verify, most telling first. */
export type CardSignatureFailure =
  | 'NO_SIGNATURE'
  | 'TRUST_UNAVAILABLE'
  | 'CANONICAL_FORM_MISMATCH'
  | 'BAD_SIGNATURE'
  | 'KEY_EXPIRED'
  | 'ALGORITHM_NOT_ALLOWED'
  | 'UNKNOWN_KID'
  | 'MALFORMED_SIGNATURE';

const RANK: readonly CardSignatureFailure[] = [
  'CANONICAL_FORM_MISMATCH',
  'BAD_SIGNATURE',
  'KEY_EXPIRED',
  'ALGORITHM_NOT_ALLOWED',
  'UNKNOWN_KID',
  'MALFORMED_SIGNATURE',
];

/** What was wrong with one signature. */
export interface SignatureFailure {
  /** Its position in `signatures`. */
  readonly index: number;
  readonly kid: string | undefined;
  readonly reason: CardSignatureFailure;
  readonly detail: string;
}

/** A card that did not verify, with a string `reason` and each signature's failure. */
export class CardSignatureError extends Error {
  readonly reason: CardSignatureFailure;
  readonly failures: readonly SignatureFailure[];
  constructor(
    reason: CardSignatureFailure,
    message: string,
    failures: readonly SignatureFailure[] = [],
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'CardSignatureError';
    this.reason = reason;
    this.failures = failures;
  }
}

/** A card that verified: the signature that counted and the form it covers. */
export interface VerifiedAgentCard<C> {
  readonly card: C;
  readonly kid: string;
  readonly alg: string;
  readonly canonicalForm: CanonicalForm;
}

const encoder = new TextEncoder();

/** The payloads to try, in order, and a non-canonical one that only diagnoses (see `CANONICAL_FORM_MISMATCH`). */
function payloadsOf(card: Record<string, unknown>, acceptA2aJs: boolean) {
  const spec = canonicalJson(specSigningObject(card));
  const js = canonicalJson(a2aJsSigningObject(card));
  const accepted: { form: CanonicalForm; payload: string }[] = [{ form: 'a2a-spec', payload: spec }];
  if (acceptA2aJs && js !== spec) accepted.push({ form: 'a2a-js', payload: js });
  // What a signer that writes non-ASCII as \u escapes (a2a-python before its RFC 8785 fix) covers: the key and
  // signature are right, the bytes are not RFC 8785, so the card is refused and told apart from a forgery.
  const escaped = [spec, js].map(asciiEscaped).filter((p) => p !== spec && p !== js);
  return { accepted, escaped };
}

function asciiEscaped(text: string): string {
  return text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

async function keyFor(entry: TrustEntry, alg: string): Promise<CryptoKey | KeyObject | Uint8Array> {
  if (entry.key) return entry.key;
  return importJWK(entry.jwk as JWK, alg);
}

async function verifies(
  sig: Record<string, unknown>,
  payload: string,
  key: CryptoKey | KeyObject | Uint8Array,
  alg: string,
): Promise<boolean> {
  try {
    await flattenedVerify(
      {
        payload: base64url.encode(encoder.encode(payload)),
        protected: sig.protected as string,
        signature: sig.signature as string,
        ...(isPlainRecord(sig.header) ? { header: sig.header } : {}),
      },
      key,
      { algorithms: [alg] },
    );
    return true;
  } catch {
    return false;
  }
}

/**
 * Verifies a card as received (the JSON object, before any parsing that would drop or rename fields). Resolves
 * with the signature that counted; rejects with `CardSignatureError`.
 * @example
 * const { kid } = await verifyAgentCard(cardJson, { jwks: { keys: [publicJwk] } });
 */
export async function verifyAgentCard<C extends object>(
  card: C,
  trust: CardTrust,
  signal?: AbortSignal,
): Promise<VerifiedAgentCard<C>> {
  const record = card as unknown as Record<string, unknown>;
  const signatures = isPlainRecord(record) ? record.signatures : undefined;
  if (!Array.isArray(signatures) || signatures.length === 0)
    throw new CardSignatureError('NO_SIGNATURE', 'the agent card carries no signature');
  let payloads: ReturnType<typeof payloadsOf>;
  try {
    payloads = payloadsOf(record, trust.acceptA2aJsForm !== false);
  } catch (err) {
    if (!(err instanceof CanonicalFormError)) throw err;
    throw new CardSignatureError('CANONICAL_FORM_MISMATCH', `the agent card ${err.message}`, [], err);
  }
  let entries: TrustEntry[];
  try {
    entries = await trustedKeys(trust, signal);
  } catch (err) {
    if (!(err instanceof TrustUnavailableError)) throw err;
    throw new CardSignatureError('TRUST_UNAVAILABLE', err.message, [], err);
  }
  const now = (trust.now ?? Date.now)();
  const failures: SignatureFailure[] = [];
  for (const [index, sig] of signatures.entries()) {
    const fail = (reason: CardSignatureFailure, detail: string, kid?: string) => {
      failures.push({ index, kid, reason, detail });
    };
    if (!isPlainRecord(sig) || typeof sig.protected !== 'string' || typeof sig.signature !== 'string') {
      fail('MALFORMED_SIGNATURE', 'not an AgentCardSignature with "protected" and "signature"');
      continue;
    }
    let header: Record<string, unknown>;
    try {
      header = decodeProtectedHeader({ protected: sig.protected });
    } catch {
      fail('MALFORMED_SIGNATURE', 'the protected header is not base64url JSON');
      continue;
    }
    const { kid, alg } = header;
    if (typeof kid !== 'string' || kid.length === 0 || typeof alg !== 'string') {
      fail('MALFORMED_SIGNATURE', 'the protected header lacks "kid" or "alg" (A2A §8.4.2)');
      continue;
    }
    if (!(CARD_SIGNING_ALGORITHMS as readonly string[]).includes(alg)) {
      fail('ALGORITHM_NOT_ALLOWED', `alg "${alg}" is not an accepted card signing algorithm`, kid);
      continue;
    }
    const named = entries.filter((e) => e.kid === kid);
    if (named.length === 0) {
      fail('UNKNOWN_KID', `no trusted key has kid "${kid}"`, kid);
      continue;
    }
    const live = named.filter((e) => e.notAfterMs === undefined || now <= e.notAfterMs);
    if (live.length === 0) {
      fail('KEY_EXPIRED', `the trusted key "${kid}" has expired`, kid);
      continue;
    }
    const usable = live.filter(
      (e) => (e.alg === undefined || e.alg === alg) && (!e.jwk || algFitsKey(alg, e.jwk)),
    );
    if (usable.length === 0) {
      fail('ALGORITHM_NOT_ALLOWED', `the trusted key "${kid}" does not verify alg "${alg}"`, kid);
      continue;
    }
    // A signature that names its form is tried in that form only; an a2a-once `a2a-js` signature exists for
    // other verifiers, and ours holds the signer to its `a2a-spec` one, which covers every value (ADR 0072).
    const namedForm = header[CANONICAL_FORM_HEADER];
    if (namedForm === 'a2a-js') {
      fail(
        'BAD_SIGNATURE',
        `the signature by "${kid}" is a compatibility signature; its a2a-spec one must verify`,
        kid,
      );
      continue;
    }
    const forms = namedForm === 'a2a-spec' ? payloads.accepted.slice(0, 1) : payloads.accepted;
    let diagnosis: CardSignatureFailure = 'BAD_SIGNATURE';
    for (const entry of usable) {
      let key: CryptoKey | KeyObject | Uint8Array;
      try {
        key = await keyFor(entry, alg);
      } catch {
        continue;
      }
      for (const { form, payload } of forms)
        if (await verifies(sig, payload, key, alg)) return { card, kid, alg, canonicalForm: form };
      for (const payload of payloads.escaped)
        if (await verifies(sig, payload, key, alg)) diagnosis = 'CANONICAL_FORM_MISMATCH';
    }
    fail(
      diagnosis,
      diagnosis === 'BAD_SIGNATURE'
        ? `the signature by "${kid}" does not verify over the card`
        : `the signature by "${kid}" covers the card with non-ASCII characters escaped, which is not RFC 8785`,
      kid,
    );
  }
  const reason = RANK.find((r) => failures.some((f) => f.reason === r)) ?? 'BAD_SIGNATURE';
  const first = failures.find((f) => f.reason === reason);
  throw new CardSignatureError(reason, `the agent card did not verify: ${first?.detail ?? reason}`, failures);
}
