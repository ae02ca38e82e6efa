/**
 * Signed agent cards (A2A §8.4): the canonical forms (ADR 0072), signing with a server's keys, and verifying
 * against keys the verifier chose (ADR 0073). Shared by the server (which signs) and the client (which verifies).
 */
export { CanonicalFormError, canonicalJson } from './jcs.js';
export { a2aJsSigningObject, canonicalAgentCard, specSigningObject } from './canonical-forms.js';
export type { CanonicalForm } from './canonical-forms.js';
export {
  CARD_SIGNING_ALGORITHMS,
  CardSigningKeyError,
  checkSigningKey,
  checkSigningKeys,
  publicPartOf,
  resolveSigningKey,
  resolveSigningKeys,
} from './signing-keys.js';
export type {
  CardSigningKey,
  CardSigningKeyErrorCode,
  CheckedSigningKey,
  ResolvedSigningKey,
} from './signing-keys.js';
export { signAgentCard } from './sign-agent-card.js';
export type { SignAgentCardOptions } from './sign-agent-card.js';
export { trustedKeys, TrustUnavailableError } from './card-trust.js';
export type { CardTrust, JwksFetch, TrustedKey, TrustEntry } from './card-trust.js';
export { CardSignatureError, verifyAgentCard } from './verify-agent-card.js';
export type { CardSignatureFailure, SignatureFailure, VerifiedAgentCard } from './verify-agent-card.js';
