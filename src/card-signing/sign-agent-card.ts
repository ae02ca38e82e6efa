/**
 * Signing a card (A2A §8.4.2): one detached JWS per key over the `a2a-spec` canonical form, with `alg`, `kid`,
 * `typ: "JOSE"` and optionally `jku` in the protected header. A card whose `a2a-js` form differs (it holds an
 * empty value that `@a2a-js/sdk` and a2a-python remove) also gets one signature per key over that form, so their
 * verifiers accept it too (ADR 0072). Each protected header names the form it covers (`CANONICAL_FORM_HEADER`),
 * and a2a-once's verifier holds a2a-once's signatures to the full `a2a-spec` form. The card returned is the one to serve: the `a2a-spec` object, so a verifier
 * that canonicalizes what it received, with no schema, computes the same bytes.
 */
import { FlattenedSign } from 'jose';
import type { AgentCard, AgentCardSignature } from '../protocol/agent-card.js';
import {
  a2aJsSigningObject,
  CANONICAL_FORM_HEADER,
  specSigningObject,
  type CanonicalForm,
} from './canonical-forms.js';
import { canonicalJson } from './jcs.js';
import { resolveSigningKeys, type CardSigningKey, type ResolvedSigningKey } from './signing-keys.js';

/** Options of `signAgentCard`. */
export interface SignAgentCardOptions {
  /** A `jku` for the protected header: where the signer publishes its JWKS (informative; verifiers choose their keys). */
  readonly jku?: string;
  /**
   * Whether a card whose `a2a-js` form differs also gets a signature per key over that form (default true), so
   * `@a2a-js/sdk` and a2a-python verify it. `false`: one signature per key, over `a2a-spec` only.
   */
  readonly a2aJsCompatible?: boolean;
}

const encoder = new TextEncoder();

async function sign(
  form: CanonicalForm,
  payload: string,
  key: ResolvedSigningKey,
  jku: string | undefined,
): Promise<AgentCardSignature> {
  const header = {
    alg: key.alg,
    kid: key.kid,
    typ: 'JOSE',
    ...(jku !== undefined ? { jku } : {}),
    [CANONICAL_FORM_HEADER]: form,
  };
  const jws = await new FlattenedSign(encoder.encode(payload))
    .setProtectedHeader(header)
    .sign(key.privateKey);
  return { protected: jws.protected ?? '', signature: jws.signature };
}

/**
 * The card as served, signed with every key. Signatures already on the card are kept, the new ones after them.
 * @example
 * const signed = await signAgentCard(card, [privateJwk]);
 */
export async function signAgentCard(
  card: AgentCard,
  keys: readonly CardSigningKey[] | readonly ResolvedSigningKey[],
  options: SignAgentCardOptions = {},
): Promise<AgentCard> {
  const resolved = isResolved(keys) ? keys : await resolveSigningKeys(keys);
  const record = card as unknown as Record<string, unknown>;
  const served = specSigningObject(record);
  const specPayload = canonicalJson(served);
  const payloads: [CanonicalForm, string][] = [['a2a-spec', specPayload]];
  if (options.a2aJsCompatible !== false) {
    const jsPayload = canonicalJson(a2aJsSigningObject(record));
    if (jsPayload !== specPayload) payloads.push(['a2a-js', jsPayload]);
  }
  const signatures: AgentCardSignature[] = [...(card.signatures ?? [])];
  for (const [form, payload] of payloads)
    for (const key of resolved) signatures.push(await sign(form, payload, key, options.jku));
  return { ...(served as unknown as AgentCard), signatures };
}

function isResolved(keys: readonly unknown[]): keys is readonly ResolvedSigningKey[] {
  return keys.every((k) => typeof k === 'object' && k !== null && 'publicJwk' in k);
}
