import { describe, expect, it } from 'vitest';
import {
  AgentCardSchema,
  ListTasksResponseSchema,
  MessageSchema,
  PartSchema,
  StreamResponseSchema,
  TaskSchema,
  keyNormalizer,
  normalizeBase64,
  parseAgentCard,
  parseParams,
  parseWith,
} from '../../src/protocol/index.js';

describe('snake_case keys', () => {
  it('reads the proto field names of a send, at every level of known objects', () => {
    const params = parseParams('SendMessage', {
      message: {
        message_id: 'm1',
        context_id: 'c1',
        task_id: 't1',
        reference_task_ids: ['t0'],
        role: 'ROLE_USER',
        parts: [{ text: 'hi', media_type: 'text/plain' }],
      },
      configuration: {
        accepted_output_modes: ['text/plain'],
        history_length: 3,
        return_immediately: true,
        task_push_notification_config: { url: 'https://hook.example/x', task_id: '' },
      },
    });
    expect(params).toEqual({
      message: {
        messageId: 'm1',
        contextId: 'c1',
        taskId: 't1',
        referenceTaskIds: ['t0'],
        role: 'ROLE_USER',
        parts: [{ text: 'hi', mediaType: 'text/plain' }],
      },
      configuration: {
        acceptedOutputModes: ['text/plain'],
        historyLength: 3,
        returnImmediately: true,
        taskPushNotificationConfig: { url: 'https://hook.example/x', taskId: '' },
      },
    });
  });

  it('reads stream events with snake_case members and fields', () => {
    const event = parseWith(
      StreamResponseSchema,
      {
        artifact_update: {
          task_id: 't',
          context_id: 'c',
          last_chunk: true,
          artifact: { artifact_id: 'a', parts: [{ data: { x: 1 } }] },
        },
      },
      'event',
    );
    expect(event).toEqual({
      artifactUpdate: {
        taskId: 't',
        contextId: 'c',
        lastChunk: true,
        artifact: { artifactId: 'a', parts: [{ data: { x: 1 } }] },
      },
    });
  });

  it('reads the card fields, protocol_binding included', () => {
    const card = parseAgentCard({
      name: 'n',
      description: 'd',
      version: '1',
      supported_interfaces: [
        { url: 'https://a.example', protocol_binding: 'JSONRPC', protocol_version: '1.0' },
      ],
      capabilities: { push_notifications: true, extended_agent_card: false },
      default_input_modes: ['text/plain'],
      default_output_modes: ['text/plain'],
      skills: [],
      security_schemes: {
        my_oauth: { oauth2_security_scheme: { flows: { client_credentials: { token_url: 'https://t' } } } },
      },
      security_requirements: [{ schemes: { my_oauth: { list: ['read_tasks'] } } }],
    });
    expect(card.supportedInterfaces[0]).toEqual({
      url: 'https://a.example',
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
    });
    expect(card.capabilities).toEqual({ pushNotifications: true, extendedAgentCard: false });
    expect(card.securitySchemes).toEqual({
      my_oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://t' } } } },
    });
    expect(card.securityRequirements).toEqual([{ schemes: { my_oauth: { list: ['read_tasks'] } } }]);
  });

  it('never renames keys inside metadata, Part.data, extension params or signature headers', () => {
    const metadata = { context_id: 'keep', nested: { task_id: 'keep' } };
    const data = { message_id: 'keep', list: [{ last_chunk: true }] };
    const message = parseWith(
      MessageSchema,
      { message_id: 'm', role: 'ROLE_AGENT', metadata, parts: [{ data, metadata: { media_type: 'x' } }] },
      'message',
    );
    expect(message.metadata).toEqual({ context_id: 'keep', nested: { task_id: 'keep' } });
    expect(message.parts[0]).toEqual({
      data: { message_id: 'keep', list: [{ last_chunk: true }] },
      metadata: { media_type: 'x' },
    });
    // Free-form values are returned as sent, not copied.
    expect(message.metadata).toBe(metadata);

    const card = parseAgentCard({
      name: 'n',
      description: 'd',
      version: '1',
      supported_interfaces: [{ url: 'u', protocol_binding: 'JSONRPC', protocol_version: '1.0' }],
      capabilities: { extensions: [{ uri: 'x', params: { max_age: 1 } }] },
      signatures: [{ protected: 'p', signature: 's', header: { key_id: 'k' } }],
    });
    expect(card.capabilities.extensions?.[0]?.params).toEqual({ max_age: 1 });
    expect(card.signatures?.[0]?.header).toEqual({ key_id: 'k' });
  });

  it('prefers the camelCase spelling when both are sent', () => {
    expect(parseParams('GetTask', { id: 't', historyLength: 2, history_length: 9 })).toEqual({
      id: 't',
      historyLength: 2,
    });
  });

  it('returns the very input object when no key needs renaming (no copy on the hot path)', () => {
    const normalize = keyNormalizer(['contextId', 'messageId']);
    const clean = { contextId: 'c', messageId: 'm', other_key: 1 };
    expect(normalize(clean)).toBe(clean);
    const snake = { context_id: 'c', messageId: 'm' };
    expect(normalize(snake)).toEqual({ contextId: 'c', messageId: 'm' });
    expect(snake).toEqual({ context_id: 'c', messageId: 'm' });
  });
});

describe('integer enums', () => {
  it('reads TaskState and Role by proto number', () => {
    const task = parseWith(
      TaskSchema,
      { id: 't', status: { state: 2, message: { messageId: 'm', role: 2, parts: [{ text: 'x' }] } } },
      'task',
    );
    expect(task.status.state).toBe('TASK_STATE_WORKING');
    expect(task.status.message?.role).toBe('ROLE_AGENT');
    expect(parseParams('ListTasks', { status: 6 }).status).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(parseParams('ListTasks', { status: 0 }).status).toBe('TASK_STATE_UNSPECIFIED');
  });
});

describe('unknown and null fields', () => {
  it('strips unknown fields, v0.3 leftovers included', () => {
    const task = parseWith(
      TaskSchema,
      { id: 't', kind: 'task', status: { state: 'TASK_STATE_COMPLETED', final: true }, surprise: { a: 1 } },
      'task',
    );
    expect(task).toStrictEqual({ id: 't', status: { state: 'TASK_STATE_COMPLETED' } });
  });

  it('reads null as absent (ProtoJSON), except as a Part.data value', () => {
    const message = parseWith(
      MessageSchema,
      {
        messageId: 'm',
        role: 'ROLE_USER',
        context_id: null,
        metadata: null,
        parts: [{ data: null, filename: null }],
      },
      'message',
    );
    expect(message).toStrictEqual({ messageId: 'm', role: 'ROLE_USER', parts: [{ data: null }] });
  });

  it('fills REQUIRED response fields a ProtoJSON writer omitted at their default', () => {
    expect(parseWith(ListTasksResponseSchema, {}, 'list')).toEqual({
      tasks: [],
      nextPageToken: '',
      pageSize: 0,
      totalSize: 0,
    });
  });
});

describe('bytes and timestamps', () => {
  it('normalises URL-safe or unpadded base64 to the standard padded form', () => {
    expect(parseWith(PartSchema, { raw: '-_8' }, 'part')).toEqual({ raw: '+/8=' });
    expect(parseWith(PartSchema, { raw: 'aGk' }, 'part')).toEqual({ raw: 'aGk=' });
    expect(parseWith(PartSchema, { raw: 'aGk=' }, 'part')).toEqual({ raw: 'aGk=' });
    expect(normalizeBase64('a')).toBeUndefined();
    expect(normalizeBase64('a$b=')).toBeUndefined();
    expect(normalizeBase64('aG=')).toBeUndefined();
    expect(Buffer.from(normalizeBase64('-_-_') ?? '', 'base64')).toEqual(Buffer.from('-_-_', 'base64url'));
  });

  it('normalises timestamps with offsets or without milliseconds to UTC with milliseconds', () => {
    const task = parseWith(
      TaskSchema,
      { id: 't', status: { state: 1, timestamp: '2025-11-09T12:30:00+02:00' } },
      'task',
    );
    expect(task.status.timestamp).toBe('2025-11-09T10:30:00.000Z');
    expect(
      parseParams('ListTasks', { status_timestamp_after: '2025-11-09T10:30:00.5z' }).statusTimestampAfter,
    ).toBe('2025-11-09T10:30:00.500Z');
  });
});

describe('REST query values', () => {
  it('reads int32 from decimal strings and bools from "true"/"false"', () => {
    expect(
      parseParams('ListTasks', { pageSize: '50', historyLength: '0', includeArtifacts: 'true' }),
    ).toEqual({
      pageSize: 50,
      historyLength: 0,
      includeArtifacts: true,
    });
  });

  it('reads an absent GetExtendedAgentCard params as {}', () => {
    expect(parseParams('GetExtendedAgentCard', undefined)).toEqual({});
    expect(parseParams('GetExtendedAgentCard', { tenant: 'acme' })).toEqual({ tenant: 'acme' });
  });
});

describe('agent card defaults', () => {
  it('reads omitted REQUIRED repeated fields as [] but demands an interface', () => {
    const card = parseWith(
      AgentCardSchema,
      {
        name: 'n',
        description: '',
        version: '1',
        supportedInterfaces: [{ url: 'u', protocolBinding: 'GRPC', protocolVersion: '1.0' }],
      },
      'card',
    );
    expect(card).toEqual({
      name: 'n',
      description: '',
      version: '1',
      supportedInterfaces: [{ url: 'u', protocolBinding: 'GRPC', protocolVersion: '1.0' }],
      capabilities: {},
      defaultInputModes: [],
      defaultOutputModes: [],
      skills: [],
    });
  });
});
