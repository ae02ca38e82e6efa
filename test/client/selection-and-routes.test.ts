/**
 * Pure pieces: interface selection from a card (A2A §8.3.2), REST routes (digest §1.1, §1.3, §9), and the
 * classification of fetch failures (SEMANTICS §7).
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  ClientError,
  classifyFetchError,
  failureKindOf,
  mayRetry,
  selectInterfaces,
} from '../../src/client/index.js';
import { restRoute } from '../../src/client/rest-routes.js';
import type { AgentCard } from '../../src/protocol/agent-card.js';
import { IdempotencyCapacityError, TaskNotFoundError } from '../../src/protocol/errors.js';

const card = (interfaces: AgentCard['supportedInterfaces']): AgentCard => ({
  name: 'a',
  description: 'a',
  version: '1',
  supportedInterfaces: interfaces,
  capabilities: {},
  defaultInputModes: [],
  defaultOutputModes: [],
  skills: [],
});

describe('selectInterfaces', () => {
  const c = card([
    { url: 'grpc.example:443', protocolBinding: 'GRPC', protocolVersion: '1.0' },
    { url: '/v03', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    { url: '/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: 't1' },
    { url: '/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  ]);

  it('keeps v1 interfaces we speak, ordered by binding preference, ties in card order, URLs resolved', () => {
    expect(
      selectInterfaces(c, ['JSONRPC', 'HTTP+JSON'], 'https://agent.example/.well-known/agent-card.json'),
    ).toEqual([
      { url: 'https://agent.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      {
        url: 'https://agent.example/rest',
        protocolBinding: 'HTTP+JSON',
        protocolVersion: '1.0',
        tenant: 't1',
      },
    ]);
    expect(selectInterfaces(c, ['HTTP+JSON']).map((i) => i.protocolBinding)).toEqual([
      'HTTP+JSON',
      'JSONRPC',
    ]);
  });

  it('refuses a card with no v1 JSON-RPC or HTTP+JSON interface rather than fall back to v0.3', () => {
    expect(() =>
      selectInterfaces(card([{ url: '/x', protocolBinding: 'JSONRPC', protocolVersion: '0.3' }])),
    ).toThrow(ClientError);
  });
});

describe('restRoute', () => {
  it('maps every operation, with the tenant prefix and camelCase query parameters', () => {
    expect(restRoute('SendMessage', { message: {} }, 'acme')).toEqual({
      method: 'POST',
      path: '/acme/message:send',
      body: { message: {} },
    });
    expect(restRoute('GetTask', { id: 'a b', historyLength: 2 })).toEqual({
      method: 'GET',
      path: '/tasks/a%20b?historyLength=2',
    });
    expect(
      restRoute('ListTasks', { status: 'TASK_STATE_WORKING', pageSize: 5, includeArtifacts: true }).path,
    ).toBe('/tasks?status=TASK_STATE_WORKING&pageSize=5&includeArtifacts=true');
    expect(restRoute('CancelTask', { id: 't' })).toEqual({
      method: 'POST',
      path: '/tasks/t:cancel',
      body: {},
    });
    expect(restRoute('SubscribeToTask', { id: 't' })).toEqual({ method: 'POST', path: '/tasks/t:subscribe' });
    expect(restRoute('CreateTaskPushNotificationConfig', { taskId: 't', url: 'u' }).path).toBe(
      '/tasks/t/pushNotificationConfigs',
    );
    expect(restRoute('GetTaskPushNotificationConfig', { taskId: 't', id: 'c' }).path).toBe(
      '/tasks/t/pushNotificationConfigs/c',
    );
    expect(restRoute('ListTaskPushNotificationConfigs', { taskId: 't', pageSize: 1 }).path).toBe(
      '/tasks/t/pushNotificationConfigs?pageSize=1',
    );
    expect(restRoute('DeleteTaskPushNotificationConfig', { taskId: 't', id: 'c' }).method).toBe('DELETE');
    expect(restRoute('GetExtendedAgentCard', {}, 'acme').path).toBe('/acme/extendedAgentCard');
  });
});

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

  it('retries what is safe: never an A2A answer, except a full key index', () => {
    expect(failureKindOf(new TaskNotFoundError())).toBe('definite');
    expect(failureKindOf(new IdempotencyCapacityError({ retryAfterSeconds: 1 }))).toBe('refused');
    expect(mayRetry('ambiguous', 'unsafe')).toBe(false);
    expect(mayRetry('ambiguous', 'keyed-send')).toBe(true);
    expect(mayRetry('ambiguous', 'read')).toBe(true);
    expect(mayRetry('not-sent', 'unsafe')).toBe(true);
    expect(mayRetry('refused', 'unsafe')).toBe(true);
    expect(mayRetry('definite', 'read')).toBe(false);
  });
});
