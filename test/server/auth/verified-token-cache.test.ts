/**
 * The verified-token cache of `jwtBearer` (ADR 0136) on a clock the test moves: an entry ends exactly when the
 * token's expiry or the cache's age says, whichever is first; a full cache drops its oldest entry; a token is
 * found only by itself.
 */
import { describe, expect, it } from 'vitest';
import { VerifiedTokenCache } from '../../../src/server/auth/verified-token-cache.js';
import { jwtBearer } from '../../../src/server/index.js';

const alice = { principal: 'alice', tenants: '*' as const };

function cacheAt(options: ConstructorParameters<typeof VerifiedTokenCache>[0] = {}) {
  const clock = { t: 1_000_000 };
  return { clock, cache: new VerifiedTokenCache(options, () => clock.t) };
}

describe('VerifiedTokenCache', () => {
  it('ends an entry at the token’s expiry when that comes before maxAgeMs, and at maxAgeMs otherwise', () => {
    const { clock, cache } = cacheAt({ maxAgeMs: 60_000 });
    cache.set('soon', alice, clock.t + 5_000);
    cache.set('later', alice, clock.t + 600_000);
    cache.set('no-exp', alice, undefined);
    clock.t += 4_999;
    expect(cache.get('soon')).toEqual(alice);
    clock.t += 1;
    expect(cache.get('soon')).toBeUndefined();
    clock.t += 54_999;
    expect(cache.get('later')).toEqual(alice);
    expect(cache.get('no-exp')).toEqual(alice);
    clock.t += 1;
    expect(cache.get('later')).toBeUndefined();
    expect(cache.get('no-exp')).toBeUndefined();
  });

  it('does not keep a token that has already expired', () => {
    const { clock, cache } = cacheAt();
    cache.set('gone', alice, clock.t);
    expect(cache.size).toBe(0);
    expect(cache.get('gone')).toBeUndefined();
  });

  it('drops the oldest entry when full; setting a token again makes it the newest', () => {
    const { cache } = cacheAt({ maxEntries: 2 });
    cache.set('a', alice, undefined);
    cache.set('b', { principal: 'bob', tenants: [] }, undefined);
    cache.set('a', alice, undefined);
    cache.set('c', alice, undefined);
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toEqual(alice);
    expect(cache.get('c')).toEqual(alice);
  });

  it('finds a token only by itself', () => {
    const { cache } = cacheAt();
    cache.set('token-1', alice, undefined);
    expect(cache.get('token-2')).toBeUndefined();
    expect(cache.get('token-1 ')).toBeUndefined();
    expect(cache.get('token-1')).toEqual(alice);
  });

  it('refuses sizes and ages that are not whole numbers of at least 1, naming the option', () => {
    const base = { keys: { keys: [] }, issuer: 'i', audience: 'a' };
    expect(() => jwtBearer({ ...base, cache: { maxEntries: 0 } })).toThrow(/cache\.maxEntries/);
    expect(() => jwtBearer({ ...base, cache: { maxAgeMs: 1.5 } })).toThrow(/cache\.maxAgeMs/);
    expect(() => jwtBearer({ ...base, cache: false })).not.toThrow();
  });
});
