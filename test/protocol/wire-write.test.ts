import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentCard, Message, Task } from '../../src/protocol/index.js';
import {
  A2AError,
  toWireAgentCard,
  toWireListTasksResponse,
  toWireMessage,
  toWirePart,
  toWireSendMessageRequest,
  toWireStreamResponse,
  toWireTask,
  toWireTaskArtifactUpdateEvent,
} from '../../src/protocol/index.js';
import { arbAgentCard, arbStreamResponse, arbTask } from './arbitraries.js';

/** Deep-freezes a value so any mutation by a writer throws. */
function freeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const member of Object.values(value)) freeze(member);
    Object.freeze(value);
  }
  return value;
}

describe('defaults are omitted', () => {
  it('drops empty strings, empty optional arrays, empty metadata, false bools and undefined', () => {
    const message = {
      messageId: 'm',
      contextId: '',
      taskId: undefined,
      role: 'ROLE_AGENT',
      parts: [{ text: '', filename: '', metadata: {} }],
      metadata: {},
      extensions: [],
      referenceTaskIds: [],
    } satisfies Message;
    expect(toWireMessage(message)).toStrictEqual({
      messageId: 'm',
      role: 'ROLE_AGENT',
      parts: [{ text: '' }],
    });
    expect(
      toWireTaskArtifactUpdateEvent({
        taskId: 't',
        contextId: 'c',
        append: false,
        lastChunk: true,
        artifact: { artifactId: 'a', name: '', parts: [{ data: 0 }] },
      }),
    ).toStrictEqual({
      taskId: 't',
      contextId: 'c',
      lastChunk: true,
      artifact: { artifactId: 'a', parts: [{ data: 0 }] },
    });
  });

  it('keeps REQUIRED fields even when empty, and proto `optional` fields when set to their default', () => {
    expect(
      toWireListTasksResponse({ tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 }),
    ).toStrictEqual({
      tasks: [],
      nextPageToken: '',
      pageSize: 50,
      totalSize: 0,
    });
    const card: AgentCard = {
      name: 'n',
      description: '',
      version: '1',
      supportedInterfaces: [{ url: 'u', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }],
      capabilities: { streaming: false, extensions: [] },
      defaultInputModes: [],
      defaultOutputModes: [],
      skills: [{ id: 's', name: 'n', description: 'd', tags: [], examples: [] }],
      signatures: [],
      securitySchemes: {},
    };
    expect(toWireAgentCard(card)).toStrictEqual({
      name: 'n',
      description: '',
      version: '1',
      supportedInterfaces: [{ url: 'u', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: false },
      defaultInputModes: [],
      defaultOutputModes: [],
      skills: [{ id: 's', name: 'n', description: 'd', tags: [] }],
    });
    expect(
      toWireSendMessageRequest({
        tenant: '',
        message: { messageId: 'm', role: 'ROLE_USER', parts: [{ url: 'https://x' }] },
        configuration: { historyLength: 0, returnImmediately: false, acceptedOutputModes: [] },
      }),
    ).toStrictEqual({
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ url: 'https://x' }] },
      configuration: { historyLength: 0 },
    });
  });

  it('drops unknown extra properties of the input', () => {
    const task = {
      id: 't',
      status: { state: 'TASK_STATE_WORKING' },
      kind: 'task',
      tenantSecret: 'x',
    } as Task;
    expect(toWireTask(task)).toStrictEqual({ id: 't', status: { state: 'TASK_STATE_WORKING' } });
  });
});

describe('canonical scalars', () => {
  it('normalises timestamps to UTC with milliseconds', () => {
    const task: Task = {
      id: 't',
      status: { state: 'TASK_STATE_COMPLETED', timestamp: '2025-01-01T01:00:00+01:00' },
    };
    expect(toWireTask(task).status.timestamp).toBe('2025-01-01T00:00:00.000Z');
  });

  it('refuses to write an invalid timestamp or raw with an InternalError', () => {
    const task: Task = { id: 't', status: { state: 'TASK_STATE_COMPLETED', timestamp: 'soon' } };
    expect(() => toWireTask(task)).toThrow(A2AError);
    expect(() => toWirePart({ raw: '%%%' })).toThrow(/raw bytes/);
  });

  it('writes raw bytes as standard padded base64', () => {
    expect(toWirePart({ raw: '-_8' })).toStrictEqual({ raw: '+/8=' });
  });
});

describe('includeArtifacts (A2A v1.0)', () => {
  const task: Task = {
    id: 't',
    status: { state: 'TASK_STATE_COMPLETED' },
    artifacts: [{ artifactId: 'a', parts: [{ text: 'x' }] }],
  };

  it('drops artifacts when false and writes [] when true', () => {
    const without = toWireListTasksResponse(
      { tasks: [task], nextPageToken: '', pageSize: 1, totalSize: 1 },
      { includeArtifacts: false },
    );
    expect(without.tasks[0]).not.toHaveProperty('artifacts');
    const bare: Task = { id: 'u', status: { state: 'TASK_STATE_WORKING' } };
    const withAll = toWireListTasksResponse(
      { tasks: [task, bare], nextPageToken: 'n', pageSize: 2, totalSize: 9 },
      { includeArtifacts: true },
    );
    expect(withAll.tasks[0]?.artifacts).toHaveLength(1);
    expect(withAll.tasks[1]?.artifacts).toEqual([]);
  });
});

describe('writers never mutate their input', () => {
  it('for tasks, stream events and cards', () => {
    fc.assert(
      fc.property(arbTask, arbStreamResponse, arbAgentCard, (task, event, card) => {
        const copies = structuredClone([task, event, card]);
        toWireTask(freeze(task));
        toWireStreamResponse(freeze(event));
        toWireAgentCard(freeze(card));
        expect([task, event, card]).toEqual(copies);
      }),
      { numRuns: 50 },
    );
  });

  it('returns new containers, sharing only free-form values', () => {
    const message: Message = {
      messageId: 'm',
      role: 'ROLE_USER',
      parts: [{ text: 'x' }],
      metadata: { a: 1 },
      extensions: ['e'],
    };
    const wire = toWireMessage(message);
    expect(wire).not.toBe(message);
    expect(wire.parts).not.toBe(message.parts);
    expect(wire.extensions).not.toBe(message.extensions);
    expect(wire.metadata).toBe(message.metadata);
  });
});
