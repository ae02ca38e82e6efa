/**
 * The SQL stores' estimate of each scope's live key count (src/store/sql/key-count-cache.ts): one estimate per
 * scope (tenant AND principal, ADR 0027), trusted only while fresh and clear of the cap by a margin, and a bounded
 * number of scopes remembered, since one per principal could otherwise grow without end.
 */
import { describe, expect, it } from 'vitest';
import { KeyCountCache, scopeKey } from '../../src/store/sql/key-count-cache.js';
import { ALICE, BOB, OTHER_TENANT } from '../store-contract/fixtures/tasks.js';

const CAP = 100_000;

describe('KeyCountCache', () => {
  it('keeps one estimate per scope: a count of Alice says nothing about Bob', () => {
    const cache = new KeyCountCache();
    cache.counted(ALICE, 10, 0);
    expect(cache.clearlyBelow(ALICE, CAP, 0)).toBe(true);
    expect(cache.clearlyBelow(BOB, CAP, 0)).toBe(false);
    expect(cache.clearlyBelow(OTHER_TENANT, CAP, 0)).toBe(false);
  });

  it('tells scopes apart even when their names would join into the same string', () => {
    expect(scopeKey({ tenant: 'a/b', owner: 'c' })).not.toBe(scopeKey({ tenant: 'a', owner: 'b/c' }));
    expect(scopeKey({ tenant: 'a', owner: '' })).not.toBe(scopeKey({ tenant: '', owner: 'a' }));
  });

  it('trusts an estimate only while fresh and clear of the cap by the margin, counting claims since', () => {
    const cache = new KeyCountCache(1000);
    cache.counted(ALICE, CAP - 10_001, 0);
    expect(cache.clearlyBelow(ALICE, CAP, 1000)).toBe(true);
    expect(cache.clearlyBelow(ALICE, CAP, 1001)).toBe(false); // stale
    cache.claimed(ALICE); // one more key: now exactly at the margin
    expect(cache.clearlyBelow(ALICE, CAP, 0)).toBe(false);
    // The margin is at least 1000 keys, however small the cap.
    cache.counted(BOB, 0, 0);
    expect(cache.clearlyBelow(BOB, 1000, 0)).toBe(false);
    expect(cache.clearlyBelow(BOB, 1001, 0)).toBe(true);
  });

  it('remembers a bounded number of scopes, dropping stale ones first, then the oldest', () => {
    const cache = new KeyCountCache(1000, 3);
    const scope = (i: number) => ({ tenant: 'acme', owner: `user-${i}` });
    cache.counted(scope(1), 0, 0);
    cache.counted(scope(2), 0, 700);
    cache.counted(scope(3), 0, 1500);
    // At 1600 the first count is stale: it goes, and the others stay.
    cache.counted(scope(4), 0, 1600);
    expect(cache.size).toBe(3);
    expect(cache.clearlyBelow(scope(1), CAP, 1600)).toBe(false);
    expect(cache.clearlyBelow(scope(2), CAP, 1500)).toBe(true);
    // Nothing stale at 1600: the oldest fresh one (scope 2) makes room.
    cache.counted(scope(5), 0, 1600);
    expect(cache.size).toBe(3);
    expect(cache.clearlyBelow(scope(2), CAP, 1600)).toBe(false);
    for (const i of [3, 4, 5]) expect(cache.clearlyBelow(scope(i), CAP, 1600)).toBe(true);
    // Counting a remembered scope again refreshes it without growing the map.
    cache.counted(scope(3), 0, 1700);
    expect(cache.size).toBe(3);
    for (let i = 0; i < 100; i++) cache.counted(scope(100 + i), 0, 2000 + i);
    expect(cache.size).toBe(3);
  });
});
