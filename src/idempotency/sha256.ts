/**
 * SHA-256 as hex. Node ≥ 20.12 has the one-shot `crypto.hash`, about three times cheaper than building a `Hash`
 * object; keys and digests are hashed on every keyed send, so the difference shows in throughput.
 */
import * as nodeCrypto from 'node:crypto';

type OneShot = {
  (algorithm: string, data: string, encoding: 'hex' | 'base64'): string;
  (algorithm: string, data: string, encoding: 'buffer'): Buffer;
};
const oneShot = (nodeCrypto as unknown as { hash?: OneShot }).hash;

/** Hex SHA-256 of a UTF-8 string. */
export const sha256Hex: (data: string) => string = oneShot
  ? (data) => oneShot('sha256', data, 'hex')
  : (data) => nodeCrypto.createHash('sha256').update(data, 'utf8').digest('hex');

/** SHA-256 of a UTF-8 string as bytes (a bearer token's digest, checked on every authenticated request). */
export const sha256Bytes: (data: string) => Buffer = oneShot
  ? (data) => oneShot('sha256', data, 'buffer')
  : (data) => nodeCrypto.createHash('sha256').update(data, 'utf8').digest();

/** SHA-256 of a UTF-8 string in base64 (the key of a verified JWT in `jwtBearer`'s cache, ADR 0136). */
export const sha256Base64: (data: string) => string = oneShot
  ? (data) => oneShot('sha256', data, 'base64')
  : (data) => nodeCrypto.createHash('sha256').update(data, 'utf8').digest('base64');
