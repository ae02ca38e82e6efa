/**
 * UUIDs for task, context, artifact and message ids: random (version 4), as `crypto.randomUUID()` makes them but
 * cheaper to allocate, and time-ordered (version 7) for the ids a durable store indexes (ADR 0048). Node 20's `randomUUID` joins 20 small strings per id, which leaves about 700 bytes of
 * short-lived string pieces behind; a blocking send mints three or four ids, and that garbage was the largest
 * single allocation of a small send (ADR 0023). Here the 36 characters are written into a reused buffer and read
 * out as one string.
 *
 * The randomness is the same: bytes from the CSPRNG (`randomFillSync`), fetched 4 KiB at a time.
 */
import { randomFillSync } from 'node:crypto';

const BATCH = 256;
const pool = Buffer.allocUnsafeSlow(16 * BATCH);
let next = BATCH; // empty: filled on first use
const out = Buffer.allocUnsafeSlow(36);
const HEX = Buffer.from('0123456789abcdef', 'latin1');
/** Where each of the 16 bytes goes in the 36 characters (the dashes sit at 8, 13, 18 and 23). */
const AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
out[8] = out[13] = out[18] = out[23] = 0x2d; // '-'

/** A new random UUID (RFC 9562 version 4), lowercase, like `crypto.randomUUID()`. */
export function newUuid(): string {
  return render(0x40, -1);
}

/**
 * A new time-ordered UUID (RFC 9562 version 7), lowercase: the first 48 bits are `now` in Unix ms, the other 74
 * random (as many as a version 4 UUID has, less 48). Ids minted close in time sort close together, so a durable
 * store's indexes on them take each new row near the last one (one page for a whole batch of sends) instead of
 * at a random place (a page each). The id reveals when it was minted, as a task's own timestamps do.
 */
export function newTimeOrderedUuid(now: number = Date.now()): string {
  return render(0x70, now);
}

/** Renders 16 random bytes with the version nibble `version`, the first 6 bytes being `ms` when it is >= 0. */
function render(version: number, ms: number): string {
  if (next === BATCH) {
    randomFillSync(pool);
    next = 0;
  }
  const base = 16 * next++;
  for (let i = 0; i < 16; i++) {
    let b = pool[base + i]!;
    // Big-endian milliseconds in bytes 0-5 (division, not shifts: 48 bits exceed JavaScript's 32-bit bitwise ops).
    if (ms >= 0 && i < 6) b = Math.floor(ms / 2 ** (8 * (5 - i))) % 256;
    else if (i === 6) b = (b & 0x0f) | version;
    else if (i === 8) b = (b & 0x3f) | 0x80; // variant 10xx
    const at = AT[i]!;
    out[at] = HEX[b >> 4]!;
    out[at + 1] = HEX[b & 0x0f]!;
  }
  // latin1Slice: toString('latin1') without its argument checks (a Node Buffer method, untyped in @types/node).
  return (out as unknown as { latin1Slice(start: number, end: number): string }).latin1Slice(0, 36);
}
