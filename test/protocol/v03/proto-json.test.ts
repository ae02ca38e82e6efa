/**
 * The v0.3 proto-JSON of the v0.3 HTTP+JSON binding (ADR 0100): requests read into v0.3 params (parts, roles,
 * the push config, `blocking` absent in a present configuration), a wrong shape refused naming the field, and
 * v0.3 results written with the proto's enums and one-member objects.
 */
import { describe, expect, it } from 'vitest';
import { InvalidParamsError } from '../../../src/protocol/errors.js';
import {
  sendRequestFromProto,
  streamEventToProto,
  taskPushConfigFromProto,
  taskPushConfigToProto,
  taskToProto,
} from '../../../src/protocol/v03/proto-json/index.js';
import { sendParamsToV1 } from '../../../src/protocol/v03/index.js';

describe('v0.3 proto-JSON requests', () => {
  it('reads text, file and data parts, the role and the configuration', () => {
    const p = sendRequestFromProto({
      message: {
        messageId: 'm',
        role: 'ROLE_USER',
        content: [
          { text: 'hi' },
          { file: { fileWithUri: 'https://x.test/a.pdf', mimeType: 'application/pdf' } },
          { file: { file_with_bytes: 'AAEC' } },
          { data: { data: { n: 1 } } },
        ],
      },
      configuration: { acceptedOutputModes: ['text/plain'], historyLength: 2 },
    });
    expect(p).toEqual({
      message: {
        kind: 'message',
        messageId: 'm',
        role: 'user',
        parts: [
          { kind: 'text', text: 'hi' },
          { kind: 'file', file: { uri: 'https://x.test/a.pdf', mimeType: 'application/pdf' } },
          { kind: 'file', file: { bytes: 'AAEC' } },
          { kind: 'data', data: { n: 1 } },
        ],
      },
      configuration: { blocking: false, acceptedOutputModes: ['text/plain'], historyLength: 2 },
    });
    // Proto's absent `blocking` is false: the v1.0 send returns at once.
    expect(sendParamsToV1(p).configuration?.returnImmediately).toBe(true);
    const blocking = sendRequestFromProto({
      request: { messageId: 'm', role: 'ROLE_AGENT', content: [] },
      configuration: { blocking: true },
    });
    expect(sendParamsToV1(blocking).configuration?.returnImmediately).toBeUndefined();
  });

  it('refuses a wrong shape with InvalidParams naming the field', () => {
    const refused = (body: Record<string, unknown>) => {
      try {
        sendParamsToV1(sendRequestFromProto(body));
      } catch (e) {
        expect(e).toBeInstanceOf(InvalidParamsError);
        return (e as Error).message;
      }
      throw new Error('not refused');
    };
    expect(refused({})).toContain('message');
    expect(refused({ message: { messageId: 'm', role: 'ROLE_USER', content: [{ file: {} }] } })).toContain(
      'message.content[0].file',
    );
    expect(refused({ message: { messageId: 'm', role: 'ROLE_USER', content: 'x' } })).toContain(
      'message.content',
    );
    expect(refused({ message: { messageId: 'm', role: 'ROLE_NOBODY', content: [] } })).toContain('role');
  });

  it('reads a push config body for the task of the path', () => {
    expect(
      taskPushConfigFromProto(
        {
          name: 'tasks/t/pushNotificationConfigs/c',
          pushNotificationConfig: {
            id: 'c',
            url: 'https://h.test',
            token: 'tk',
            authentication: { schemes: ['Bearer'], credentials: 'x' },
          },
        },
        't',
      ),
    ).toEqual({
      taskId: 't',
      pushNotificationConfig: {
        id: 'c',
        url: 'https://h.test',
        token: 'tk',
        authentication: { schemes: ['Bearer'], credentials: 'x' },
      },
    });
  });
});

describe('v0.3 proto-JSON answers', () => {
  it('writes a task with the proto enums, content and the status message', () => {
    expect(
      taskToProto({
        kind: 'task',
        id: 't',
        contextId: 'c',
        status: {
          state: 'canceled',
          message: {
            kind: 'message',
            messageId: 'a',
            role: 'agent',
            parts: [{ kind: 'data', data: { k: 1 } }],
          },
        },
        artifacts: [{ artifactId: 'x', parts: [{ kind: 'file', file: { bytes: 'AA', name: 'n.bin' } }] }],
      }),
    ).toEqual({
      id: 't',
      contextId: 'c',
      status: {
        state: 'TASK_STATE_CANCELLED',
        message: { messageId: 'a', role: 'ROLE_AGENT', content: [{ data: { data: { k: 1 } } }] },
      },
      artifacts: [{ artifactId: 'x', parts: [{ file: { fileWithBytes: 'AA' } }] }],
    });
  });

  it('writes stream events as one-member objects and a push config by its resource name', () => {
    expect(
      streamEventToProto({
        kind: 'status-update',
        taskId: 't',
        contextId: 'c',
        status: { state: 'input-required' },
        final: true,
      }),
    ).toEqual({
      statusUpdate: {
        taskId: 't',
        contextId: 'c',
        status: { state: 'TASK_STATE_INPUT_REQUIRED' },
        final: true,
      },
    });
    expect(
      streamEventToProto({
        kind: 'artifact-update',
        taskId: 't',
        contextId: 'c',
        artifact: { artifactId: 'a', parts: [{ kind: 'text', text: 'x' }] },
        lastChunk: true,
      }),
    ).toEqual({
      artifactUpdate: {
        taskId: 't',
        contextId: 'c',
        artifact: { artifactId: 'a', parts: [{ text: 'x' }] },
        lastChunk: true,
      },
    });
    expect(
      taskPushConfigToProto({ taskId: 't', pushNotificationConfig: { id: 'c', url: 'https://h.test' } }),
    ).toEqual({
      name: 'tasks/t/pushNotificationConfigs/c',
      pushNotificationConfig: { id: 'c', url: 'https://h.test' },
    });
  });
});
