import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { keyHash } from '../../src/idempotency/index.js';
import { validKey } from './arbitraries.js';

describe('keyHash', () => {
  it('is the first 12 hex characters of the SHA-256, never the key', () => {
    fc.assert(
      fc.property(validKey, (key) => {
        const hash = keyHash(key);
        expect(hash).toMatch(/^[0-9a-f]{12}$/);
        expect(hash).toBe(createHash('sha256').update(key).digest('hex').slice(0, 12));
        expect(hash).not.toBe(key);
        expect(keyHash(key)).toBe(hash);
      }),
    );
  });

  it('tells distinct keys apart', () => {
    fc.assert(
      fc.property(validKey, validKey, (a, b) => {
        fc.pre(a !== b);
        expect(keyHash(a)).not.toBe(keyHash(b));
      }),
    );
  });

  it('has a known value (stable across releases: dashboards join on it)', () => {
    expect(keyHash('8f14e45fceea167a5a36dedd4bea2543')).toBe('403dd45c5e49');
  });
});
