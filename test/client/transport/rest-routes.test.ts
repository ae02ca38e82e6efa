/**
 * The HTTP+JSON routes of the eleven operations (A2A v1.0).
 */
import { describe, expect, it } from 'vitest';
import { restRoute } from '../../../src/client/transport/rest-routes.js';

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
