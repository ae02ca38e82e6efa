/** Comparing a secret the caller presents with the one we expect, without telling how much of it was right. */
import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether `given` equals `expected`, in time that depends on neither's content nor on where they differ. Both are
 * hashed first, so unequal lengths are compared in the same time too (timingSafeEqual needs equal lengths).
 */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}
