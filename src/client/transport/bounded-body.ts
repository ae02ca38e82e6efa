/**
 * Reading an answer's body under a size limit (ADR 0069): a declared Content-Length past the limit fails before a
 * byte is read; otherwise the body is read as a stream, its bytes counted as they arrive, and cancelled as soon
 * as it passes the limit, so an oversized answer is never held in memory whole (the server bounds what it reads
 * the same way: `server/http/body.ts`).
 *
 * What an oversized body means: where its HTTP status decides the failure by itself (429, 502, 503, 504: the
 * caller passes `statusFailure` of `failure-kind.ts`), that failure, as if the body were unreadable; otherwise an
 * ambiguous `RESPONSE_TOO_LARGE` (an answer arrived, so the call ran or may have), which the retry loop does not
 * repeat. (The classification is passed in rather than imported, so this file stays a leaf of `transport/`.)
 */
import type { AttemptSignal } from './transport.js';
import { readChunk } from './read-chunk.js';
import { TransportError } from './transport-error.js';

/** The default limit on one answer, one card and one SSE event: 8 MiB (twice the server's 4 MiB request limit). */
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** What an HTTP status means by itself, when it does (`statusFailure`). */
export type StatusFailure = (res: Response) => TransportError | undefined;

function tooLarge(res: Response, maxBytes: number, seen: string, byStatus: StatusFailure): TransportError {
  const failure = new TransportError(
    'ambiguous',
    'RESPONSE_TOO_LARGE',
    `the answer (HTTP ${res.status}) is larger than the client's limit of ${maxBytes} bytes (${seen}); raise maxResponseBytes to read it`,
    { httpStatus: res.status, limitBytes: maxBytes },
  );
  return byStatus(res) ?? failure;
}

function cancel(res: Response): void {
  res.body?.cancel().catch(() => undefined);
}

/** The declared length, when the header is a plain decimal number. */
function declaredLength(res: Response): number | undefined {
  const value = res.headers.get('content-length');
  if (value === null || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value);
}

/**
 * The body as text, at most `maxBytes` bytes of it; a larger body is cancelled and fails as described above. A body
 * that fails to arrive is ambiguous (the peer answered something).
 */
export async function readBoundedText(
  res: Response,
  scope: AttemptSignal,
  maxBytes: number,
  byStatus: StatusFailure,
): Promise<string> {
  const declared = declaredLength(res);
  if (declared !== undefined && declared > maxBytes) {
    cancel(res);
    throw tooLarge(res, maxBytes, `Content-Length ${declared}`, byStatus);
  }
  if (res.body === null) return '';
  const reader = res.body.getReader();
  const decoder = new TextDecoder('utf-8');
  const parts: string[] = [];
  let size = 0;
  try {
    for (;;) {
      const chunk = await readChunk(
        reader,
        scope,
        (err) =>
          new TransportError('ambiguous', 'BAD_BODY', 'the response body did not arrive', {
            cause: err,
            httpStatus: res.status,
          }),
      );
      if (chunk.done) break;
      size += chunk.value.byteLength;
      if (size > maxBytes) {
        reader.cancel().catch(() => undefined);
        throw tooLarge(res, maxBytes, `more than ${maxBytes} bytes arrived`, byStatus);
      }
      parts.push(decoder.decode(chunk.value, { stream: true }));
    }
  } finally {
    reader.releaseLock();
  }
  parts.push(decoder.decode());
  return parts.join('');
}
