import { describe, expect, it } from 'vitest';
import { newTimeOrderedUuid, newUuid } from '../../src/protocol/uuid.js';

describe('newUuid', () => {
  it('makes version-4 UUIDs in the canonical lowercase form, all different', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      const id = newUuid();
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(20_000);
  });

  it('spreads its random bits evenly (each hex digit of the random positions near 1/16)', () => {
    const counts = new Array<number>(16).fill(0);
    const n = 20_000;
    for (let i = 0; i < n; i++) counts[parseInt(newUuid()[0]!, 16)]!++;
    for (const c of counts) expect(Math.abs(c / n - 1 / 16)).toBeLessThan(0.01);
  });
});

describe('newTimeOrderedUuid', () => {
  const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it('makes version-7 UUIDs whose first 48 bits are the given Unix milliseconds', () => {
    for (const now of [0, 1, 1_796_000_000_123, 2 ** 48 - 1]) {
      const id = newTimeOrderedUuid(now);
      expect(id).toMatch(V7);
      expect(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(now);
    }
  });

  it('sorts by time as text, and ids of one millisecond are all different', () => {
    const ids = Array.from({ length: 2000 }, (_, i) =>
      newTimeOrderedUuid(1_796_000_000_000 + Math.floor(i / 100)),
    );
    const byTime = ids.map((id, i) => ({ id, ms: Math.floor(i / 100) }));
    const sorted = [...byTime].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    expect(sorted.map((x) => x.ms)).toEqual(byTime.map((x) => x.ms));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('leaves newUuid random: version 4, no time prefix', () => {
    expect(newUuid()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4/);
  });
});
