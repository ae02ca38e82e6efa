/**
 * Errors of the v0.3 HTTP+JSON binding (ADR 0100) in the shape `@a2a-js/sdk`'s v0.3 REST transport reads:
 * `{ code, message, data }` with the JSON-RPC code (-32008 and -32009 keep their v1.0 codes, ADR 0098), and the
 * HTTP status of a2a-js's v0.3 table for the codes v0.3 defines (400 for a bad request or a refused operation,
 * 404 for an unknown task, 501 for an unknown method, 500 for an internal error). A refusal whose status carries
 * meaning of its own (401, 403, 405, 413, 415, 429, 503) keeps it, with its `Retry-After`.
 */
import type { A2AError } from '../../../protocol/errors.js';
import { toJsonRpcError } from '../../../protocol/error-wire.js';
import { MEDIA_JSON } from '../../../protocol/constants.js';
import { respond } from '../wire/light-response.js';

const V03_STATUS: Readonly<Record<number, number>> = {
  [-32700]: 400,
  [-32600]: 400,
  [-32601]: 501,
  [-32602]: 400,
  [-32603]: 500,
  [-32001]: 404,
  [-32002]: 400,
  [-32003]: 400,
  [-32004]: 400,
  [-32005]: 400,
  [-32006]: 500,
  [-32007]: 400,
  [-32008]: 400,
  [-32009]: 400,
};

const KEPT = new Set([401, 403, 405, 413, 415, 429, 503]);

/** The HTTP status of an error on the v0.3 REST binding. */
export function v03RestStatus(err: A2AError): number {
  if (KEPT.has(err.httpStatus)) return err.httpStatus;
  return V03_STATUS[err.code] ?? err.httpStatus;
}

/** The body of an error on the v0.3 REST binding (and of its SSE `event: error`). */
export function v03RestErrorBody(err: A2AError): string {
  return JSON.stringify(toJsonRpcError(err));
}

/** A v0.3 REST error response. */
export function v03RestErrorResponse(err: A2AError, extraHeaders: Record<string, string> = {}): Response {
  const headers: Record<string, string> = { 'Content-Type': MEDIA_JSON, ...extraHeaders };
  if (err.retryAfterSeconds !== undefined) headers['Retry-After'] = String(err.retryAfterSeconds);
  if (err.httpStatus === 413) headers.Connection = 'close';
  return respond(v03RestStatus(err), v03RestErrorBody(err), headers);
}
