/**
 * The classification of failures and answers (docs/semantics.md §7, ADR 0020): what a fetch error, an HTTP status or an
 * A2A error answer says about whether the call ran, and which kinds the policy retries for which safety.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { classifyFetchError, failureKindOf, mayRetry } from '../../../src/client/index.js';
import { statusFailure } from '../../../src/client/transport/failure-kind.js';
import { fromJsonRpcError, fromRestError } from '../../../src/protocol/error-wire.js';
import {
  ERROR_INFO_TYPE,
  IdempotencyCapacityError,
  IdempotencyKeyReusedError,
  InternalError,
  InvalidAgentResponseError,
  ServerBusyError,
  TaskNotFoundError,
} from '../../../src/protocol/errors.js';

describe('failure classification', () => {
  it('a refused connection is not sent; a reset is ambiguous', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((r) => server.close(() => r()));
    const refused = await fetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(classifyFetchError(refused).kind).toBe('not-sent');

    const resetter = createServer((socket) => socket.on('data', () => socket.resetAndDestroy()));
    await new Promise<void>((r) => resetter.listen(0, '127.0.0.1', r));
    const reset = await fetch(`http://127.0.0.1:${(resetter.address() as AddressInfo).port}/`, {
      method: 'POST',
      body: 'x',
    }).catch((e: unknown) => e);
    await new Promise<void>((r) => resetter.close(() => r()));
    expect(classifyFetchError(reset).kind).toBe('ambiguous');
  });

  it('retries what is safe: ambiguous only for reads and keyed sends, a definite answer never', () => {
    expect(mayRetry('ambiguous', 'unsafe')).toBe(false);
    expect(mayRetry('ambiguous', 'keyed-send')).toBe(true);
    expect(mayRetry('ambiguous', 'read')).toBe(true);
    expect(mayRetry('not-sent', 'unsafe')).toBe(true);
    expect(mayRetry('refused', 'unsafe')).toBe(true);
    expect(mayRetry('definite', 'read')).toBe(false);
  });
});

describe('what an A2A error answer says about whether the call ran', () => {
  it('INTERNAL and UNAVAILABLE are ambiguous: the server may have run the call before it failed', () => {
    expect(failureKindOf(new InternalError())).toBe('ambiguous');
    expect(failureKindOf(new ServerBusyError())).toBe('ambiguous');
    // As rebuilt off the wire: a bare -32603, and a REST 503 of a reason this client does not know.
    expect(failureKindOf(fromJsonRpcError({ code: -32603, message: 'boom' }))).toBe('ambiguous');
    const unknownUnavailable = {
      error: {
        code: 503,
        status: 'UNAVAILABLE',
        message: 'backend away',
        details: [{ '@type': ERROR_INFO_TYPE, reason: 'BACKEND_AWAY', domain: 'gateway.example' }],
      },
    };
    expect(failureKindOf(fromRestError(503, unknownUnavailable))).toBe('ambiguous');
    expect(failureKindOf(fromRestError(500, undefined))).toBe('ambiguous');
  });

  it('the capacity refusal says nothing ran; every other A2A answer is definite', () => {
    expect(failureKindOf(new IdempotencyCapacityError({ retryAfterSeconds: 1 }))).toBe('refused');
    expect(failureKindOf(new TaskNotFoundError())).toBe('definite');
    expect(failureKindOf(new IdempotencyKeyReusedError())).toBe('definite');
    // Raised by this client about a complete answer it could not read: that answer was definite.
    expect(failureKindOf(new InvalidAgentResponseError())).toBe('definite');
    expect(failureKindOf(fromJsonRpcError({ code: -32050, message: 'application error' }))).toBe('definite');
  });
});

describe('what an HTTP status says by itself', () => {
  const res = (status: number, headers: Record<string, string> = {}) =>
    new Response('x', { status, headers });

  it('a bare 503 is ambiguous (a proxy may have reset an upstream that had the request), Retry-After kept', () => {
    const failure = statusFailure(res(503, { 'retry-after': '2' }));
    expect(failure?.kind).toBe('ambiguous');
    expect(failure?.code).toBe('UNAVAILABLE');
    expect(failure?.retryAfterMs).toBe(2_000);
    expect(statusFailure(res(503), new ServerBusyError())?.kind).toBe('ambiguous');
  });

  it('a 503 whose A2A body says nothing ran, and any 429, are refused up front', () => {
    const capacity = new IdempotencyCapacityError({ retryAfterSeconds: 30 });
    const failure = statusFailure(res(503, { 'retry-after': '30' }), capacity);
    expect(failure?.kind).toBe('refused');
    expect(failure?.cause).toBe(capacity);
    expect(statusFailure(res(429))?.kind).toBe('refused');
    expect(statusFailure(res(429), new InternalError())?.kind).toBe('refused');
  });

  it('a 503 whose reason is SERVER_DRAINING is refused too, whatever its domain (ADR 0088)', () => {
    const draining = fromRestError(503, {
      error: {
        code: 503,
        status: 'UNAVAILABLE',
        message: 'shutting down',
        details: [{ '@type': ERROR_INFO_TYPE, reason: 'SERVER_DRAINING', domain: 'a2a-once.dev' }],
      },
    });
    expect(failureKindOf(draining)).toBe('refused');
    expect(statusFailure(res(503, { 'retry-after': '1' }), draining)?.kind).toBe('refused');
  });

  it('502 and 504 are ambiguous; other statuses leave it to the body', () => {
    expect(statusFailure(res(502))?.kind).toBe('ambiguous');
    expect(statusFailure(res(504))?.kind).toBe('ambiguous');
    expect(statusFailure(res(500))).toBeUndefined();
    expect(statusFailure(res(200))).toBeUndefined();
  });
});
