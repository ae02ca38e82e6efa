/** Test keys for card signing: real key pairs made by `jose`, as JWKs with a `kid`. */
import { exportJWK, generateKeyPair, type JWK } from 'jose';

/** A private JWK (with `kid` and `alg`) and its public half. */
export interface TestKey {
  readonly privateJwk: JWK;
  readonly publicJwk: JWK;
}

/** A fresh key pair for `alg` named `kid`. */
export async function testKey(
  kid: string,
  alg: 'ES256' | 'EdDSA' | 'RS256' | 'PS256' = 'ES256',
): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return {
    privateJwk: { ...(await exportJWK(privateKey)), kid, alg },
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg },
  };
}
