/**
 * The nesting limit of the wire (docs/semantics.md §2 "Input refused at the door", ADR 0031). A2A's deepest
 * fixed shape is a few levels (a Task's history message's part's metadata); free-form values (`metadata`, a
 * part's `data`) sit inside it.
 * 64 leaves room for any honest document, and refuses the hostile one before anything recursive touches it:
 * JSON.parse copes with 5,000 levels, but everything after it (schemas, the digest, stores, response writers)
 * would either blow the stack or, worse, keep a value nobody can write back out.
 */

/** Deepest container nesting a request may have: `[[1]]` is 2, `{"a":[1]}` is 2, `1` is 0. */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * The deepest container nesting of JSON `text`, found by one linear scan that tracks depth outside strings. It
 * stops as soon as the depth passes `limit` and returns `limit + 1`, so a hostile body costs no more than the
 * prefix that gave it away. String contents are skipped with `indexOf`, so a large text part costs little.
 *
 * For well-formed JSON the result equals the nesting depth of `JSON.parse(text)`. For malformed text it is some
 * number: the caller parses next and refuses malformed text there, so it need not be meaningful.
 */
export function jsonDepth(text: string, limit = Infinity): number {
  let depth = 0;
  let max = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = endOfString(text, i + 1);
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return max;
}

/**
 * Whether JSON `text` nests deeper than `limit`. Depth can never exceed the number of `{` and `[` in the text, so
 * a body with no more openers than the limit (nearly every real request) is answered by a few native `indexOf`
 * calls, without the character scan of `jsonDepth`.
 */
export function exceedsJsonDepth(text: string, limit: number = MAX_JSON_DEPTH): boolean {
  if (openersAtMost(text, limit)) return false;
  return jsonDepth(text, limit) > limit;
}

/** Whether `text` holds at most `n` of `{` and `[` together (inside strings or not). */
function openersAtMost(text: string, n: number): boolean {
  let count = 0;
  for (let i = text.indexOf('{'); i !== -1; i = text.indexOf('{', i + 1)) if (++count > n) return false;
  for (let i = text.indexOf('['); i !== -1; i = text.indexOf('[', i + 1)) if (++count > n) return false;
  return true;
}

/** Index of the quote that closes the string whose contents start at `from` (the text's length if none). */
function endOfString(text: string, from: number): number {
  let i = from;
  for (;;) {
    const q = text.indexOf('"', i);
    if (q === -1) return text.length;
    // The quote is escaped when an odd number of backslashes precede it.
    let b = q - 1;
    while (b >= from && text.charCodeAt(b) === BACKSLASH) b--;
    if ((q - 1 - b) % 2 === 0) return q;
    i = q + 1;
  }
}
