/**
 * The one-shot SHA-256 helpers give the digest `createHash` gives, byte for byte, for any UTF-8 text: the bearer
 * token table and the verified-token cache compare and key by them, and idempotency digests are stored.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256Base64, sha256Bytes, sha256Hex } from '../../src/idempotency/sha256.js';

const reference = (s: string) => createHash('sha256').update(s, 'utf8').digest();

describe('sha256 helpers', () => {
  it('match createHash for any string, ASCII or not', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (s) => {
        const want = reference(s);
        expect(Buffer.from(sha256Bytes(s)).equals(want)).toBe(true);
        expect(sha256Hex(s)).toBe(want.toString('hex'));
        expect(sha256Base64(s)).toBe(want.toString('base64'));
      }),
    );
  });

  it('gives 32 bytes, a fresh buffer each call', () => {
    const a = sha256Bytes('token');
    const b = sha256Bytes('token');
    expect(a).toHaveLength(32);
    expect(a).not.toBe(b);
    a[0] = a[0]! ^ 0xff;
    expect(sha256Bytes('token').equals(reference('token'))).toBe(true);
  });
});
