import { describe, expect, it } from 'vitest';
import { newUuid } from '../../src/protocol/uuid.js';

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
