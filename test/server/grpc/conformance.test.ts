/**
 * What the A2A conformance suite checks over gRPC, by requirement id (A2A §10, digest §4.1 v1.0.1 codes):
 * the service and its streaming shape, service parameters as metadata, errors as status codes with
 * `google.rpc.ErrorInfo` in `grpc-status-details-bin`, and the gRPC variants of the core checks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeProto, GRPC_METHODS } from '../../../src/protocol/grpc/index.js';
import { IDEMPOTENCY_EXTENSION_URI } from '../../../src/idempotency/index.js';
import { startGrpcFixture, userMessage, type GrpcFixture } from './grpc-fixture.js';
import { GrpcFailure } from './grpc-test-client.js';

let f: GrpcFixture;
beforeAll(async () => {
  f = await startGrpcFixture();
});
afterAll(() => f.close());

async function failure(p: Promise<unknown>): Promise<GrpcFailure> {
  const r = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(r).toBeInstanceOf(GrpcFailure);
  return r as GrpcFailure;
}

function errorInfo(fail: GrpcFailure): Record<string, unknown> | undefined {
  return fail.status?.details?.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo');
}

describe('gRPC conformance', () => {
  it('GRPC-SVC-001: the service is lf.a2a.v1.A2AService with the eleven methods', async () => {
    expect(Object.values(GRPC_METHODS).map((m) => m.path.split('/')[1])).toEqual(
      new Array(11).fill('lf.a2a.v1.A2AService'),
    );
    // An unknown method of the service is UNIMPLEMENTED (grpc-js's answer for a path it does not serve).
    const fail = await failure(
      new Promise((resolve, reject) =>
        f.client.client.makeUnaryRequest(
          '/lf.a2a.v1.A2AService/QuerySkill',
          (b: Buffer) => b,
          (b: Buffer) => b,
          Buffer.alloc(0),
          (err, v) =>
            err ? reject(new GrpcFailure(err.code, err.details, undefined, err.metadata)) : resolve(v),
        ),
      ),
    );
    expect(fail.code).toBe(12);
  });

  it('GRPC-SVC-002: SendStreamingMessage and SubscribeToTask are server-streaming', async () => {
    expect(
      Object.entries(GRPC_METHODS)
        .filter(([, m]) => m.serverStreaming)
        .map(([n]) => n),
    ).toEqual(['SendStreamingMessage', 'SubscribeToTask']);
    const events = await f.client.stream('SendStreamingMessage', { message: userMessage('reply') });
    expect(events).toEqual([{ message: expect.objectContaining({ role: 'ROLE_AGENT' }) as unknown }]);
  });

  it('GRPC-SVC-003: messages are the proto messages: a unary SendMessage answers a SendMessageResponse', async () => {
    const { value } = await f.client.unary('SendMessage', { message: userMessage('x') });
    expect(Object.keys(value as object)).toEqual(['task']);
  });

  it('GRPC-META-001: a2a-version and a2a-extensions travel as metadata; the activated extension is echoed', async () => {
    const key = `grpc-meta-key-${Date.now()}`;
    const { metadata } = await f.client.unary(
      'SendMessage',
      {
        message: userMessage('x', {
          metadata: { 'a2a-rust.com/idempotency-key': key },
          extensions: [IDEMPOTENCY_EXTENSION_URI],
        }),
      },
      { 'a2a-version': '1.0', 'a2a-extensions': `urn:other, ${IDEMPOTENCY_EXTENSION_URI}` },
    );
    expect(metadata.get('a2a-extensions')).toEqual([IDEMPOTENCY_EXTENSION_URI]);
    expect(metadata.get('a2a-once-admission')).toEqual(['created']);
    // A patch number does not influence negotiation (A2A §3.6); no version at all is served as 1.0, like HTTP.
    await f.client.unary('GetExtendedAgentCard', {}, { 'a2a-version': '1.0.3' });
    await f.client.unary('GetExtendedAgentCard', {}, {});
  });

  it('GRPC-META-001: an unsupported a2a-version is FAILED_PRECONDITION with reason VERSION_NOT_SUPPORTED', async () => {
    const fail = await failure(f.client.unary('GetExtendedAgentCard', {}, { 'a2a-version': '2.0' }));
    expect(fail.code).toBe(9);
    expect(errorInfo(fail)).toMatchObject({ reason: 'VERSION_NOT_SUPPORTED', domain: 'a2a-protocol.org' });
  });

  it('GRPC-ERR-001: an unknown task is NOT_FOUND with ErrorInfo TASK_NOT_FOUND', async () => {
    for (const call of [
      f.client.unary('GetTask', { id: 'no-such-task' }),
      f.client.unary('CancelTask', { id: 'no-such-task' }),
      f.client.stream('SubscribeToTask', { id: 'no-such-task' }),
    ]) {
      const fail = await failure(call);
      expect(fail.code).toBe(5);
      expect(errorInfo(fail)).toMatchObject({ reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' });
    }
  });

  it('GRPC-ERR-002: invalid params and undecodable bytes are INVALID_ARGUMENT naming the field', async () => {
    const noParts = await failure(
      f.client.unary('SendMessage', { message: { messageId: 'm', role: 'ROLE_USER' } }),
    );
    expect(noParts.code).toBe(3);
    expect(noParts.message).toMatch(/message\.parts/);
    expect(errorInfo(noParts)).toMatchObject({ reason: 'INVALID_PARAMS' });
    const garbage = await failure(f.client.raw('GetTask', Buffer.from([0x12, 0xff, 0x01])));
    expect(garbage.code).toBe(3);
    const badKey = await failure(
      f.client.unary('SendMessage', {
        message: userMessage('x', { metadata: { 'a2a-rust.com/idempotency-key': 'short' } }),
      }),
    );
    expect(badKey.code).toBe(3);
    expect(errorInfo(badKey)).toMatchObject({ reason: 'IDEMPOTENCY_KEY_INVALID' });
  });

  it('GRPC-ERR-003: the status details are a google.rpc.Status whose code and message match the call', async () => {
    const sent = await f.client.unary('SendMessage', { message: userMessage('x') });
    const id = (sent.value as { task: { id: string } }).task.id;
    const fail = await failure(f.client.unary('CancelTask', { id }));
    expect(fail.code).toBe(9);
    expect(fail.status).toMatchObject({ code: 9, message: fail.message });
    expect(errorInfo(fail)).toMatchObject({ reason: 'TASK_NOT_CANCELABLE' });
    // Subscribing to a terminal task is UNSUPPORTED_OPERATION (A2A §3.1.6).
    const sub = await failure(f.client.stream('SubscribeToTask', { id }));
    expect(errorInfo(sub)).toMatchObject({ reason: 'UNSUPPORTED_OPERATION' });
  });

  it('core over gRPC: a message to a terminal task is refused; a continuation of INPUT_REQUIRED runs', async () => {
    const done = await f.client.unary('SendMessage', { message: userMessage('x') });
    const doneId = (done.value as { task: { id: string } }).task.id;
    const refused = await failure(
      f.client.unary('SendMessage', { message: userMessage('again', { taskId: doneId }) }),
    );
    expect(errorInfo(refused)).toMatchObject({ reason: 'UNSUPPORTED_OPERATION' });
    const asked = await f.client.unary('SendMessage', { message: userMessage('ask') });
    const askedId = (asked.value as { task: { id: string } }).task.id;
    const cont = await f.client.unary('SendMessage', { message: userMessage('thanks', { taskId: askedId }) });
    expect(cont.value).toMatchObject({ task: { id: askedId, status: { state: 'TASK_STATE_COMPLETED' } } });
  });

  it('core over gRPC: the tenant field scopes tasks', async () => {
    const sent = await f.client.unary('SendMessage', { tenant: 'acme', message: userMessage('x') });
    const id = (sent.value as { task: { id: string } }).task.id;
    expect(((await f.client.unary('GetTask', { tenant: 'acme', id })).value as { id: string }).id).toBe(id);
    expect((await failure(f.client.unary('GetTask', { tenant: 'other', id }))).code).toBe(5);
    expect((await failure(f.client.unary('GetTask', { id }))).code).toBe(5);
  });

  it('the request bytes are the proto message: a hand-encoded GetTaskRequest is served', async () => {
    const sent = await f.client.unary('SendMessage', { message: userMessage('x') });
    const id = (sent.value as { task: { id: string } }).task.id;
    const value = await f.client.raw('GetTask', Buffer.from(encodeProto('GetTaskRequest', { id })));
    expect(value).toMatchObject({ id });
  });
});
