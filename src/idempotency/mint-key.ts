/**
 * Keys minted by a2a-once's client (docs/semantics.md §1: at least 16 bytes from `crypto.getRandomValues`, base64url,
 * prefixed with the mint time so a server can tell a key's age without storing it).
 *
 * Format, version 1:
 *
 *     ik1.<mint time>.<random>
 *
 * - `ik1`: format tag and version, so a later format can be told apart.
 * - `<mint time>`: milliseconds since the Unix epoch, base36, lowercase, no leading zeros (8 characters until
 *   the year 2059, 9 after). Canonical, so one key has exactly one reading.
 * - `<random>`: 16 bytes from the Web Crypto CSPRNG, base64url without padding (22 characters). The seed's
 *   rule: a key must be unguessable, since within a tenant it is a handle to a task (a2a-rust's idempotency docs, "Choosing a key").
 *
 * Every character is in the key charset (letters, digits, `.`, `-`, `_`), and the whole is 28–38 characters (35 today),
 * within 16–255. The mint time is the client's clock: a reader should allow for skew.
 */
const PREFIX = 'ik1.';
const RANDOM_BYTES = 16;
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** 2020-01-01T00:00:00Z: no key of this format was minted earlier, so an earlier time is not a mint time. */
export const MIN_MINT_TIME_MS = Date.UTC(2020, 0, 1);

/** How far ahead of the reader's clock a mint time may be (client clock skew) before it is implausible. */
export const MAX_MINT_CLOCK_SKEW_MS = 24 * 60 * 60 * 1000;

/**
 * The shape of an `ik1` key, as a pattern (the reference `mintTimeOf` is tested against; it reads keys by hand).
 * 16 bytes leave 4 unused bits in the last base64url character, so a canonical one is one of A, Q, g, w.
 */
export const IK1_KEY_SHAPE = /^ik1\.([1-9a-z][0-9a-z]{0,10})\.[A-Za-z0-9_-]{21}[AQgw]$/;

/** Base64url without padding, written out so minting needs no Node module (it also runs in browsers). */
function base64url(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += B64URL[n >>> 18]! + B64URL[(n >>> 12) & 63]! + B64URL[(n >>> 6) & 63]! + B64URL[n & 63]!;
  }
  const left = bytes.length - i;
  if (left === 1) {
    const n = bytes[i]! << 16;
    out += B64URL[n >>> 18]! + B64URL[(n >>> 12) & 63]!;
  } else if (left === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += B64URL[n >>> 18]! + B64URL[(n >>> 12) & 63]! + B64URL[(n >>> 6) & 63]!;
  }
  return out;
}

/**
 * Mints a fresh key in the `ik1` format above: 128 random bits plus the mint time.
 * Mint once per logical send and reuse it for every attempt (docs/semantics.md §7).
 *
 * @param now mint time in epoch milliseconds; a non-negative safe integer. Defaults to the current time.
 * @throws {RangeError} when `now` is not a non-negative safe integer (a programming error).
 * @example setKey(message, mintKey()) // metadata key like 'ik1.mbx3k2q0.q5Tn0v9H1sJd2m8xWcA7pQ'
 */
export function mintKey(now: number = Date.now()): string {
  if (!Number.isSafeInteger(now) || now < 0) {
    throw new RangeError(`mintKey: the mint time must be a non-negative integer of milliseconds, got ${now}`);
  }
  return `${PREFIX}${now.toString(36)}.${base64url(nextRandom())}`;
}

// CSPRNG bytes fetched 4 KiB at a time: one `getRandomValues` call costs about 2 µs, most of a key's minting.
// Every key still gets its own 16 bytes, never reused.
const POOL_KEYS = 256;
const pool = new Uint8Array(RANDOM_BYTES * POOL_KEYS);
let pooled = 0;

function nextRandom(): Uint8Array {
  if (pooled === 0) {
    crypto.getRandomValues(pool);
    pooled = POOL_KEYS;
  }
  pooled--;
  return pool.subarray(pooled * RANDOM_BYTES, (pooled + 1) * RANDOM_BYTES);
}

/**
 * The mint time (epoch ms) of a key in the `ik1` format, or `undefined` for any other key, including a
 * malformed one and one whose time is implausible: before 2020 or more than `MAX_MINT_CLOCK_SKEW_MS` ahead of
 * `now`. A caller-chosen key has no readable age; a server then relies on its own record of the key.
 *
 * @param now the reader's clock, epoch ms. Defaults to the current time.
 */
export function mintTimeOf(key: string, now: number = Date.now()): number | undefined {
  if (typeof key !== 'string' || !key.startsWith(PREFIX)) return undefined;
  // Read by hand rather than with IK1_KEY_SHAPE (same rules, see the test): it runs on every keyed send.
  const dot = key.indexOf('.', PREFIX.length);
  const digits = dot - PREFIX.length;
  if (digits < 1 || digits > 11 || key.length !== dot + 23) return undefined;
  let time = 0;
  for (let i = PREFIX.length; i < dot; i++) {
    const d = base36Digit(key.charCodeAt(i));
    if (d < 0 || (d === 0 && i === PREFIX.length)) return undefined; // no leading zero: one reading per key
    time = time * 36 + d;
  }
  for (let i = dot + 1; i < key.length - 1; i++) if (!isBase64url(key.charCodeAt(i))) return undefined;
  const last = key.charCodeAt(key.length - 1);
  if (last !== 0x41 && last !== 0x51 && last !== 0x67 && last !== 0x77) return undefined; // A Q g w
  if (!Number.isSafeInteger(time) || time < MIN_MINT_TIME_MS || time > now + MAX_MINT_CLOCK_SKEW_MS)
    return undefined;
  return time;
}

function base36Digit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x7a) return c - 0x61 + 10;
  return -1;
}

function isBase64url(c: number): boolean {
  return (
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x2d ||
    c === 0x5f
  );
}
