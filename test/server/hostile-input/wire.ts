/**
 * Raw wire requests for the hostile-input tests. Bodies are written as text, because the point is what a hostile
 * caller can put on the wire (nesting no JSON.stringify of ours would produce), and answers are read into the
 * one error shape of the duplicate-safety helpers.
 */
import { extractError, type Binding, type Endpoint, type WireError } from '../duplicate-safety/helpers.js';

let rpcId = 0;

/** JSON text of a value nested `depth` arrays deep around `1` (`[[1]]` is depth 2). */
export function nestedArrays(depth: number): string {
  return '['.repeat(depth) + '1' + ']'.repeat(depth);
}

/** JSON text of a value nested `depth` objects deep (`{"a":{"a":1}}` is depth 2). */
export function nestedObjects(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

/** A JSON-RPC request whose `params` is the given JSON text. */
export function rpcTextRequest(ep: Endpoint, method: string, paramsText: string): Request {
  const body = `{"jsonrpc":"2.0","id":${++rpcId},"method":"${method}","params":${paramsText}}`;
  return new Request(`${ep.base}/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body,
  });
}

/** A REST request with the given JSON text as its body. */
export function restTextRequest(ep: Endpoint, method: string, path: string, bodyText: string): Request {
  return new Request(`${ep.base}${path}`, {
    method,
    headers: { 'Content-Type': 'application/a2a+json' },
    body: bodyText,
  });
}

/** A SendMessage of either binding whose params are the given JSON text. */
export function sendText(ep: Endpoint, binding: Binding, paramsText: string): Request {
  return binding === 'jsonrpc'
    ? rpcTextRequest(ep, 'SendMessage', paramsText)
    : restTextRequest(ep, 'POST', '/message:send', paramsText);
}

/** The answer of a call: its HTTP status and either the error or the result body. */
export type CallAnswer =
  | { readonly ok: true; readonly httpStatus: number; readonly result: unknown }
  | { readonly ok: false; readonly httpStatus: number; readonly error: WireError };

/** Reads a unary answer of either binding. */
export async function readCall(binding: Binding, res: Response): Promise<CallAnswer> {
  const text = await res.text();
  const body = text === '' ? undefined : (JSON.parse(text) as unknown);
  const isError =
    typeof body === 'object' &&
    body !== null &&
    'error' in body &&
    (binding === 'jsonrpc' || res.status >= 400);
  if (isError || (binding === 'rest' && res.status >= 400))
    return { ok: false, httpStatus: res.status, error: extractError(binding, res.status, res.headers, body) };
  const result = binding === 'jsonrpc' ? (body as { result?: unknown }).result : body;
  return { ok: true, httpStatus: res.status, result };
}

/** A ListTasks of either binding. */
export function listTasksRequest(ep: Endpoint, binding: Binding): Request {
  return binding === 'jsonrpc'
    ? rpcTextRequest(ep, 'ListTasks', '{}')
    : new Request(`${ep.base}/tasks`, { method: 'GET' });
}

/** What a parse-error refusal looks like on each binding (JSON-RPC -32700 / HTTP 400 PARSE_ERROR). */
export function isParseError(a: CallAnswer, binding: Binding): boolean {
  if (a.ok) return false;
  return binding === 'jsonrpc'
    ? a.error.code === -32700 && a.error.reason === 'PARSE_ERROR'
    : a.httpStatus === 400 && a.error.reason === 'PARSE_ERROR' && a.error.status === 'INVALID_ARGUMENT';
}
