/**
 * Recognises a database refusing text it cannot hold (ADR 0059). The server refuses such text at the door, so
 * this is the second line: should a name ever slip past the check, the caller is told its input was invalid
 * (INVALID_PARAMS), never that the server failed (INTERNAL).
 */

/**
 * PostgreSQL SQLSTATEs of text that cannot be stored: `22021` character_not_in_repertoire (U+0000 in `text`:
 * "invalid byte sequence for encoding UTF8: 0x00") and `22P05` untranslatable_character (`\u0000` in `jsonb`).
 * SQLite and the memory store hold any JS string, so they raise neither.
 */
const UNSTORABLE_TEXT_CODES: ReadonlySet<string> = new Set(['22021', '22P05']);

/** How far down `cause` chains to look: a driver error wrapped by a store or a retry helper or two. */
const MAX_CAUSES = 4;

/** Whether `err` (or an error it wraps) is a database's refusal of text it cannot store. */
export function isUnstorableTextError(err: unknown): boolean {
  let e: unknown = err;
  for (let i = 0; i <= MAX_CAUSES && typeof e === 'object' && e !== null; i++) {
    const code: unknown = (e as { code?: unknown }).code;
    if (typeof code === 'string' && UNSTORABLE_TEXT_CODES.has(code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
