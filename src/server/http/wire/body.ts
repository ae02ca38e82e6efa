/**
 * Reading a request body as JSON under a size limit. A declared Content-Length over the limit is refused
 * before reading; a chunked body is read incrementally and refused as soon as it passes the limit, so an
 * oversized upload never sits in memory whole. Nesting past the wire limit is refused as malformed JSON before
 * it is parsed (docs/semantics.md §2 "Input refused at the door", ADR 0031).
 */
import { JSONParseError, PayloadTooLargeError } from '../../../protocol/errors.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../../../protocol/json-depth.js';

function tooLarge(max: number): PayloadTooLargeError {
  return new PayloadTooLargeError({
    message: `Request body exceeds the server's limit of ${max} bytes`,
    metadata: { limitBytes: String(max) },
  });
}

/**
 * The body as text, or a PayloadTooLargeError. Not an `async` function: the common case (a declared length) hands
 * back `req.text()` itself, without wrapping it in one more promise on every request.
 */
export function readBodyText(req: Request, maxBytes: number): Promise<string> {
  const declared = req.headers.get('content-length');
  if (declared !== null) {
    const n = Number(declared);
    if (Number.isFinite(n) && n > maxBytes) return Promise.reject(tooLarge(maxBytes));
    // Node's parser delivers exactly Content-Length bytes, so the declared size bounds the read.
    if (Number.isFinite(n)) return req.text();
  }
  return readChunked(req, maxBytes);
}

/** A body without a declared length, read chunk by chunk and refused as soon as it passes the limit. */
async function readChunked(req: Request, maxBytes: number): Promise<string> {
  if (!req.body) return '';
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Parses JSON text; malformed JSON is -32700, never a crash. JSON nested deeper than `MAX_JSON_DEPTH` is
 * malformed here: it is refused before the parse, so no schema, digest or store ever holds such a value.
 */
export function parseJsonText(text: string): unknown {
  if (exceedsJsonDepth(text, MAX_JSON_DEPTH)) {
    throw new JSONParseError({
      message: `Invalid JSON payload: nested deeper than ${MAX_JSON_DEPTH} levels`,
      metadata: { maxDepth: String(MAX_JSON_DEPTH) },
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new JSONParseError({
      message: `Invalid JSON payload: ${err instanceof Error ? err.message : 'parse error'}`,
    });
  }
}
