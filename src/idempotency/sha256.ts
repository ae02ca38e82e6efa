/**
 * SHA-256 as hex. Node ≥ 20.12 has the one-shot `crypto.hash`, about three times cheaper than building a `Hash`
 * object; keys and digests are hashed on every keyed send, so the difference shows in throughput.
 */
import * as nodeCrypto from 'node:crypto';

type OneShot = (algorithm: string, data: string, encoding: 'hex') => string;
const oneShot = (nodeCrypto as unknown as { hash?: OneShot }).hash;

/** Hex SHA-256 of a UTF-8 string. */
export const sha256Hex: (data: string) => string = oneShot
  ? (data) => oneShot('sha256', data, 'hex')
  : (data) => nodeCrypto.createHash('sha256').update(data, 'utf8').digest('hex');
