/**
 * The asymmetric JWS algorithms (RFC 7518 §3.1, and RFC 8037's EdDSA with its fully specified `Ed25519`): what a
 * signature checked by strangers may use, since whoever verifies must not hold the key that signs. Card
 * signatures (A2A §8.4) and JWT bearer tokens both accept exactly these; `none` and the HMACs never.
 */
export const ASYMMETRIC_JWS_ALGORITHMS = [
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
] as const;
