/**
 * Signing a card that is not a v1.0 card (the v0.3 forms a compat server serves, ADR 0099): one detached JWS
 * per key over the RFC 8785 form of the object as served, without its `signatures`, with `alg`, `kid`,
 * `typ: "JOSE"` and optionally `jku` in the protected header. No proto field presence applies: the bytes signed
 * are the bytes a verifier that canonicalizes what it received computes.
 */
import { FlattenedSign } from 'jose';
import type { AgentCardSignature } from '../protocol/agent-card.js';
import { canonicalJson } from './jcs.js';
import type { ResolvedSigningKey } from './signing-keys.js';

const encoder = new TextEncoder();

/** `obj` with a `signatures` list: one signature per key, over `obj` without `signatures`. */
export async function signJsonObject(
  obj: Readonly<Record<string, unknown>>,
  keys: readonly ResolvedSigningKey[],
  jku?: string,
): Promise<Record<string, unknown>> {
  const { signatures: _old, ...rest } = obj;
  const payload = encoder.encode(canonicalJson(rest));
  const signatures: AgentCardSignature[] = [];
  for (const key of keys) {
    const header = { alg: key.alg, kid: key.kid, typ: 'JOSE', ...(jku !== undefined ? { jku } : {}) };
    const jws = await new FlattenedSign(payload).setProtectedHeader(header).sign(key.privateKey);
    signatures.push({ protected: jws.protected ?? '', signature: jws.signature });
  }
  return { ...rest, signatures };
}
