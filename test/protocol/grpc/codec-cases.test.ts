/**
 * The codec's ProtoJSON rules one by one (A2A v1.0 §5.5): requests, well-known types, bytes, enums, field
 * names, refusals, and `google.rpc.Status` with ErrorInfo details (A2A §10.6).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  GRPC_METHODS,
  GRPC_STATUS_CODE,
  ProtoCodecError,
  decodeGrpcStatus,
  decodeProto,
  encodeGrpcStatus,
  encodeProto,
  fromGrpcStatus,
  grpcStatusOf,
  protoRoundTrip,
} from '../../../src/protocol/grpc/index.js';
import { TaskNotFoundError, VersionNotSupportedError } from '../../../src/protocol/errors.js';
import { arbJsonValue, arbTimestamp } from '../arbitraries.js';

describe('requests', () => {
  const requests: [string, unknown][] = [
    ['GetTaskRequest', { tenant: 't1', id: 'task-1', historyLength: 0 }],
    ['GetTaskRequest', { id: 'task-1' }],
    [
      'ListTasksRequest',
      {
        tenant: 't',
        contextId: 'c',
        status: 'TASK_STATE_WORKING',
        pageSize: 50,
        pageToken: 'p',
        historyLength: 3,
        statusTimestampAfter: '2025-11-09T10:30:00.000Z',
        includeArtifacts: false,
      },
    ],
    ['CancelTaskRequest', { id: 'x', metadata: { why: ['a', 1, null, { b: true }] } }],
    ['SubscribeToTaskRequest', { tenant: 'a/b', id: 'x' }],
    ['GetTaskPushNotificationConfigRequest', { taskId: 'x', id: 'c1' }],
    ['DeleteTaskPushNotificationConfigRequest', { tenant: 't', taskId: 'x', id: 'c1' }],
    ['ListTaskPushNotificationConfigsRequest', { tenant: 't', taskId: 'x', pageSize: 2, pageToken: 'n' }],
    ['ListTaskPushNotificationConfigsResponse', { configs: [{ taskId: 'x', id: 'c', url: 'https://h/p' }] }],
    ['GetExtendedAgentCardRequest', { tenant: 't' }],
    ['GetExtendedAgentCardRequest', {}],
  ];
  for (const [type, value] of requests) {
    it(`${type} ${JSON.stringify(value).slice(0, 60)} round-trips`, () => {
      expect(protoRoundTrip(type, value)).toEqual(value);
    });
  }

  it('every method of the service names message types the .proto has', () => {
    for (const shape of Object.values(GRPC_METHODS)) {
      expect(() => encodeProto(shape.requestType, {})).not.toThrow();
      expect(() => decodeProto(shape.responseType, new Uint8Array())).not.toThrow();
    }
    expect(decodeProto('google.protobuf.Empty', new Uint8Array())).toEqual({});
  });
});

describe('well-known types and scalars', () => {
  it('Value carries any JSON value in a data part, null included', () => {
    fc.assert(
      fc.property(arbJsonValue, (data) => {
        const part = { data };
        expect(protoRoundTrip('Message', { messageId: 'm', role: 'ROLE_USER', parts: [part] })).toEqual({
          messageId: 'm',
          role: 'ROLE_USER',
          parts: [part],
        });
      }),
      { numRuns: 200 },
    );
  });

  it('Timestamp round-trips a canonical timestamp and normalises an offset to Z', () => {
    fc.assert(
      fc.property(arbTimestamp, (ts) => {
        expect(protoRoundTrip('ListTasksRequest', { statusTimestampAfter: ts })).toEqual({
          statusTimestampAfter: ts,
        });
      }),
    );
    expect(protoRoundTrip('ListTasksRequest', { statusTimestampAfter: '2025-01-01T02:00:00+02:00' })).toEqual(
      {
        statusTimestampAfter: '2025-01-01T00:00:00.000Z',
      },
    );
    expect(
      protoRoundTrip('ListTasksRequest', { statusTimestampAfter: '2025-01-01T00:00:00.123456789Z' }),
    ).toEqual({
      statusTimestampAfter: '2025-01-01T00:00:00.123456789Z',
    });
  });

  it('bytes are standard padded base64 out, and URL-safe base64 is read', () => {
    const urlSafe = Buffer.from([0xfb, 0xff, 0xfe]).toString('base64url');
    const out = protoRoundTrip('Message', { messageId: 'm', role: 'ROLE_AGENT', parts: [{ raw: urlSafe }] });
    expect(out).toEqual({ messageId: 'm', role: 'ROLE_AGENT', parts: [{ raw: '+//+' }] });
  });

  it('snake_case keys are read; unknown keys are ignored; defaults are not written', () => {
    const bytes = encodeProto('Message', {
      message_id: 'm',
      role: 'ROLE_USER',
      context_id: '',
      parts: [{ text: '', media_type: 'text/plain' }],
      somethingElse: 1,
    });
    expect(decodeProto('Message', bytes)).toEqual({
      messageId: 'm',
      role: 'ROLE_USER',
      parts: [{ text: '', mediaType: 'text/plain' }],
    });
  });

  it('an optional field keeps its presence at the default; a plain one does not', () => {
    expect(protoRoundTrip('GetTaskRequest', { id: 'x', historyLength: 0 })).toEqual({
      id: 'x',
      historyLength: 0,
    });
    expect(protoRoundTrip('SendMessageConfiguration', { returnImmediately: false })).toEqual({});
  });

  it('REQUIRED fields are read back at their default, as the model has them', () => {
    expect(decodeProto('ListTasksResponse', new Uint8Array())).toEqual({
      tasks: [],
      nextPageToken: '',
      pageSize: 0,
      totalSize: 0,
    });
  });
});

describe('refusals name the field', () => {
  const bad: [string, unknown, string][] = [
    ['Message', { messageId: 'm', role: 'ROLE_BOSS' }, 'role'],
    ['Message', { messageId: 7 }, 'messageId'],
    ['Message', { parts: [{ raw: 'not base64!' }] }, 'parts[0].raw'],
    ['Message', { metadata: { n: Number.NaN } }, 'metadata.n'],
    ['Message', { metadata: [] }, 'metadata'],
    ['ListTasksRequest', { statusTimestampAfter: 'yesterday' }, 'statusTimestampAfter'],
    ['ListTasksRequest', { pageSize: 1.5 }, 'pageSize'],
  ];
  for (const [type, value, path] of bad) {
    it(`${type} ${JSON.stringify(value)} → ProtoCodecError at ${path}`, () => {
      let caught: unknown;
      try {
        encodeProto(type, value);
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(ProtoCodecError);
      expect((caught as ProtoCodecError).path).toBe(path);
    });
  }

  it('bytes that are not the message are a ProtoCodecError', () => {
    expect(() => decodeProto('Task', Uint8Array.from([0x0a, 0xff, 0x01]))).toThrow(ProtoCodecError);
  });
});

describe('google.rpc.Status', () => {
  it('an A2AError becomes its v1.0.1 code, its message and its ErrorInfo, and back', () => {
    const err = new TaskNotFoundError({ message: 'no task t', metadata: { taskId: 't' } });
    const status = grpcStatusOf(err);
    expect(status.code).toBe(GRPC_STATUS_CODE.NOT_FOUND);
    const bin = encodeGrpcStatus(status);
    expect(decodeGrpcStatus(bin)).toEqual({
      code: 5,
      message: 'no task t',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'TASK_NOT_FOUND',
          domain: 'a2a-protocol.org',
          metadata: { taskId: 't' },
        },
      ],
    });
    const back = fromGrpcStatus(status.code, status.message, bin);
    expect(back).toBeInstanceOf(TaskNotFoundError);
    expect(back.metadata).toEqual({ taskId: 't' });
  });

  it('a v1.0.0 peer answering UNIMPLEMENTED is classified by its reason', () => {
    const info = new VersionNotSupportedError().toErrorInfo();
    const bin = encodeGrpcStatus({
      code: GRPC_STATUS_CODE.UNIMPLEMENTED,
      message: 'v',
      details: [{ ...info }],
    });
    expect(fromGrpcStatus(GRPC_STATUS_CODE.UNIMPLEMENTED, 'v', bin)).toBeInstanceOf(VersionNotSupportedError);
  });

  it('BadRequest details round-trip; unknown details keep their bytes', () => {
    const status = {
      code: 3,
      message: 'bad',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.BadRequest',
          fieldViolations: [{ field: 'message.parts', description: 'at least one part' }],
        },
        { '@type': 'type.example.com/x.Y', value: 'AAEC' },
      ],
    };
    expect(decodeGrpcStatus(encodeGrpcStatus(status))).toEqual(status);
  });

  it('without details the code alone classifies', () => {
    expect(fromGrpcStatus(GRPC_STATUS_CODE.NOT_FOUND, 'gone').name).toBe('TaskNotFoundError');
    expect(fromGrpcStatus(GRPC_STATUS_CODE.NOT_FOUND, 'gone', Uint8Array.from([0xff])).name).toBe(
      'TaskNotFoundError',
    );
  });
});
