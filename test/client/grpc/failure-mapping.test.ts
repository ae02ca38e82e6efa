/**
 * Every A2A error over gRPC reaches the caller as the same error class the JSON-RPC and HTTP+JSON bindings give
 * (ADR 0112): read from the ErrorInfo reason first (a2a-once's and v1.0.1's codes, v1.0.0's `UNIMPLEMENTED`), and
 * by the bare code where a peer sends none. Statuses without an A2A error are classified as the HTTP bindings
 * classify theirs: UNAVAILABLE / DEADLINE_EXCEEDED / CANCELLED / INTERNAL after the request was sent are ambiguous,
 * RESOURCE_EXHAUSTED is a refusal (retried after `retry-after`), an answer past the read limit is
 * RESPONSE_TOO_LARGE, an unreadable one BAD_BODY. UNAUTHENTICATED refreshes a provider's credential and resends
 * once, a send included. Metadata carries a2a-version, a2a-extensions, the credential and the caller's headers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient, OutcomeUnknownError, TransportError, failureKindOf } from '../../../src/client/index.js';
import type { A2AClientOptions, RetryEvent } from '../../../src/client/index.js';
import { grpcTransport } from '../../../src/client/grpc/index.js';
import { A2AError, ERROR_SPECS, type A2AErrorName } from '../../../src/protocol/errors.js';
import { IDEMPOTENCY_EXTENSION_URI } from '../../../src/idempotency/index.js';
import { startScriptedServer, type ScriptedServer } from './scripted-grpc-server.js';

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(async () => {
  await server.close();
});

function clientOf(options: A2AClientOptions = {}): A2AClient {
  return A2AClient.fromEndpoint(server.address, {
    binding: 'GRPC',
    transports: [grpcTransport({ insecure: true })],
    retry: false,
    ...options,
  });
}

async function failureOf(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

const NAMES = Object.keys(ERROR_SPECS) as A2AErrorName[];

describe('A2A errors over gRPC (ADR 0112)', () => {
  it.each(NAMES)('%s, with its ErrorInfo (v1.0.1 codes), is the same error class', async (name) => {
    const err = await failureOf(clientOf().getTask('t', { headers: { 'x-error': name } }));
    expect(err).toBeInstanceOf(A2AError);
    expect((err as A2AError).name).toBe(name);
    expect((err as A2AError).reason).toBe(ERROR_SPECS[name].reason);
  });

  it.each([
    'UnsupportedOperationError',
    'PushNotificationNotSupportedError',
    'VersionNotSupportedError',
  ] as const)('%s under v1.0.0 (UNIMPLEMENTED with the reason)', async (name) => {
    const err = await failureOf(clientOf().getTask('t', { headers: { 'x-error': name, 'x-form': 'v100' } }));
    expect((err as A2AError).name).toBe(name);
  });

  it.each([
    'TaskNotFoundError',
    'InvalidParamsError',
    'UnauthenticatedError',
    'PermissionDeniedError',
  ] as const)('%s by its bare code, without ErrorInfo', async (name) => {
    const err = await failureOf(clientOf().getTask('t', { headers: { 'x-error': name, 'x-form': 'bare' } }));
    expect((err as A2AError).name).toBe(name);
    expect(failureKindOf(err)).toBe('definite');
  });

  it("v1.0.0's UNIMPLEMENTED without ErrorInfo reads as UnsupportedOperationError", async () => {
    const err = await failureOf(clientOf().getTask('t', { headers: { 'x-status': 'UNIMPLEMENTED' } }));
    expect((err as A2AError).name).toBe('UnsupportedOperationError');
  });

  it('FAILED_PRECONDITION without ErrorInfo: a definite error that keeps the code', async () => {
    const err = await failureOf(clientOf().getTask('t', { headers: { 'x-status': 'FAILED_PRECONDITION' } }));
    expect(err).toBeInstanceOf(A2AError);
    expect((err as A2AError).grpcStatus).toBe('FAILED_PRECONDITION');
    expect(failureKindOf(err)).toBe('definite');
  });

  it('the capacity refusal says nothing ran (refused); INTERNAL and server-busy may have run (ambiguous)', async () => {
    const kind = async (name: string) =>
      failureKindOf(await failureOf(clientOf().getTask('t', { headers: { 'x-error': name } })));
    expect(await kind('IdempotencyCapacityError')).toBe('refused');
    expect(await kind('InternalError')).toBe('ambiguous');
    expect(await kind('ServerBusyError')).toBe('ambiguous');
  });
});

describe('gRPC statuses without an A2A error', () => {
  it.each(['UNAVAILABLE', 'DEADLINE_EXCEEDED', 'CANCELLED', 'INTERNAL', 'UNKNOWN', 'ABORTED', 'DATA_LOSS'])(
    '%s after the request was sent is ambiguous: an unkeyed send ends in OutcomeUnknownError',
    async (status) => {
      const err = await failureOf(clientOf().send('x', { key: false, headers: { 'x-status': status } }));
      expect(err).toBeInstanceOf(OutcomeUnknownError);
      const cause = (err as OutcomeUnknownError).cause;
      expect(cause).toBeInstanceOf(TransportError);
      expect((cause as TransportError).kind).toBe('ambiguous');
    },
  );

  it('RESOURCE_EXHAUSTED is a refusal with its retry-after: a send is retried and succeeds', async () => {
    const events: RetryEvent[] = [];
    const client = clientOf({
      retry: { maxAttempts: 2, backoff: { initialMs: 1 }, onRetry: (e) => events.push(e) },
    });
    const err = await failureOf(
      client.send('x', { key: false, headers: { 'x-status': 'RESOURCE_EXHAUSTED', 'x-retry-after': '0' } }),
    );
    // Refused both times: the refusal itself, never an outcome unknown.
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).kind).toBe('refused');
    expect((err as TransportError).retryAfterMs).toBe(0);
    expect(events).toHaveLength(1);
  });

  it('an answer past maxResponseBytes is RESPONSE_TOO_LARGE (ambiguous, not retried)', async () => {
    const client = A2AClient.fromEndpoint(server.address, {
      binding: 'GRPC',
      transports: [grpcTransport({ insecure: true })],
      maxResponseBytes: 1024,
    });
    const err = await failureOf(client.getTask('t', { headers: { 'x-answer': 'big', 'x-bytes': '4096' } }));
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).code).toBe('RESPONSE_TOO_LARGE');
    // A smaller per-call limit than the channel's is kept too.
    const small = await failureOf(
      clientOf().getTask('t', { maxResponseBytes: 16, headers: { 'x-answer': 'big', 'x-bytes': '64' } }),
    );
    expect((small as TransportError).code).toBe('RESPONSE_TOO_LARGE');
  });

  it('an answer that is no message is an unreadable answer (BAD_BODY, ambiguous)', async () => {
    const err = await failureOf(clientOf().getTask('t', { headers: { 'x-answer': 'garbage' } }));
    expect((err as TransportError).code).toBe('BAD_BODY');
    expect((err as TransportError).kind).toBe('ambiguous');
  });

  it("the attempt's timeout and the call's deadline: the gRPC deadline, then an ambiguous failure", async () => {
    const before = Date.now();
    const timedOut = await failureOf(
      clientOf().getTask('t', { attemptTimeoutMs: 100, headers: { 'x-hang': '1' } }),
    );
    // The gRPC deadline and the attempt's timer end together: either says so.
    expect(['TIMEOUT', 'DEADLINE_EXCEEDED']).toContain((timedOut as TransportError).code);
    expect((timedOut as TransportError).kind).toBe('ambiguous');
    const sent = server.calls.at(-1)!.deadline;
    expect(sent).toBeGreaterThanOrEqual(before + 100 - 50);
    expect(sent).toBeLessThan(before + 1_000);
    const late = await failureOf(
      clientOf().send('x', { key: false, timeoutMs: 100, headers: { 'x-hang': '1' } }),
    );
    expect(late).toBeInstanceOf(OutcomeUnknownError);
    expect(((late as OutcomeUnknownError).cause as TransportError).kind).toBe('ambiguous');
  });

  it("a stream that never opens times out like a unary call; a stream's gRPC deadline is the call's, not the attempt's", async () => {
    const neverOpened = await failureOf(
      (async () => {
        for await (const _ of clientOf().subscribe('t', {
          attemptTimeoutMs: 100,
          headers: { 'x-hang': '1' },
        })) {
          // nothing arrives
        }
      })(),
    );
    expect((neverOpened as TransportError).code).toBe('TIMEOUT');
    // The stream's gRPC deadline is the call's, not the attempt's: none here.
    expect(server.calls.at(-1)!.deadline).toBe(Infinity);
  });

  it("the caller aborting a call ends it with the caller's reason", async () => {
    const controller = new AbortController();
    const pending = failureOf(
      clientOf().getTask('t', { signal: controller.signal, headers: { 'x-hang': '1' } }),
    );
    setTimeout(() => controller.abort(new Error('caller gave up')), 20);
    expect(((await pending) as Error).message).toBe('caller gave up');
  });
});

describe('metadata and credentials over gRPC', () => {
  it('sends a2a-version, a2a-extensions, the caller headers and the credential as metadata', async () => {
    const client = clientOf({
      credentials: { bearer: 'tok-1' },
      headers: { 'x-team': 'blue' },
      peerHonoursKeys: true,
    });
    await client.send('hello', { key: 'grpc-metadata-key-0001' });
    const md = server.calls.at(-1)!.metadata;
    expect(md['a2a-version']).toBe('1.0');
    expect(md['a2a-extensions']).toBe(IDEMPOTENCY_EXTENSION_URI);
    expect(md.authorization).toBe('Bearer tok-1');
    expect(md['x-team']).toBe('blue');
  });

  it('UNAUTHENTICATED: the provider is asked for a fresh credential and the call is resent once (an unkeyed send too)', async () => {
    const asked: boolean[] = [];
    const client = clientOf({
      credentials: ({ refresh }) => {
        asked.push(refresh);
        return { bearer: refresh ? 'fresh' : 'stale' };
      },
    });
    const res = await client.send('x', { key: false, headers: { 'x-auth': 'fresh' } });
    expect('task' in res).toBe(true);
    expect(asked).toEqual([false, true]);
    const task = await client.getTask('t', { headers: { 'x-auth': 'fresh' } });
    expect(task.id).toBe('task-1');
  });

  it('a fixed credential refused is final, and a second refusal after a refresh too', async () => {
    const fixed = await failureOf(
      clientOf({ credentials: { bearer: 'stale' } }).getTask('t', { headers: { 'x-auth': 'fresh' } }),
    );
    expect((fixed as A2AError).name).toBe('UnauthenticatedError');
    let n = 0;
    const never = await failureOf(
      clientOf({ credentials: () => ({ bearer: `wrong-${++n}` }) }).getTask('t', {
        headers: { 'x-auth': 'fresh' },
      }),
    );
    expect((never as A2AError).name).toBe('UnauthenticatedError');
    expect(n).toBe(2);
  });
});
