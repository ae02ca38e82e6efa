/**
 * A2A error answers as a server puts them on the wire (A2A v1.0), for the fault proxy to answer with: the
 * JSON-RPC `error` member (with the request's id echoed) or the REST `google.rpc.Status` body, with the HTTP
 * status a2a-once's server uses for each (JSON-RPC: 503 for UNAVAILABLE, 500 for -32603, else 200).
 */
import type { A2AError } from '../../../src/protocol/errors.js';
import { toJsonRpcError, toRestErrorBody } from '../../../src/protocol/error-wire.js';
import type { SeenRequest } from './fault-proxy.js';

/** A status and a body for the fault proxy's `refuse` or `replace` faults. */
export interface ErrorAnswer {
  readonly status: number;
  readonly body: (r: SeenRequest) => string;
}

function rpcIdOf(r: SeenRequest): unknown {
  try {
    return (JSON.parse(r.body) as { id?: unknown }).id ?? null;
  } catch {
    return null;
  }
}

/** `err` as the given binding answers it. */
export function errorAnswer(binding: 'JSONRPC' | 'HTTP+JSON', err: A2AError): ErrorAnswer {
  if (binding === 'HTTP+JSON')
    return { status: err.httpStatus, body: () => JSON.stringify(toRestErrorBody(err)) };
  const status = err.httpStatus === 503 ? 503 : err.code === -32603 ? 500 : 200;
  return {
    status,
    body: (r) => JSON.stringify({ jsonrpc: '2.0', id: rpcIdOf(r), error: toJsonRpcError(err) }),
  };
}
