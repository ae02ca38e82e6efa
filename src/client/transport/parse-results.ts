/**
 * Reading results off the wire with the protocol's lenient schemas (snake_case and integer enums accepted,
 * A2A v1.0). A complete answer that does not conform is a definite but invalid answer from the agent:
 * `InvalidAgentResponseError` (-32006, A2A v1.0), never retried.
 */
import type { AgentCard } from '../../protocol/agent-card.js';
import type { SendMessageResponse, StreamResponse, Task } from '../../protocol/model.js';
import { parseAgentCard, parseAgentResponse } from '../../protocol/parse.js';
import type {
  ListTaskPushNotificationConfigsResponse,
  ListTasksResponse,
  TaskPushNotificationConfig,
} from '../../protocol/requests.js';
import {
  ListTaskPushNotificationConfigsResponseSchema,
  ListTasksResponseSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  TaskPushNotificationConfigSchema,
  TaskSchema,
} from '../../protocol/schemas/index.js';

/** A `Task` result (GetTask, CancelTask). */
export function readTask(raw: unknown): Task {
  return parseAgentResponse(TaskSchema, raw, 'task');
}

/** A `SendMessageResponse` (`{task}` or `{message}`, never a bare Task). */
export function readSendResponse(raw: unknown): SendMessageResponse {
  return parseAgentResponse(SendMessageResponseSchema, raw, 'SendMessage result');
}

/** One `StreamResponse` event. */
export function readStreamResponse(raw: unknown): StreamResponse {
  return parseAgentResponse(StreamResponseSchema, raw, 'stream event');
}

/** A `ListTasksResponse`. */
export function readListTasks(raw: unknown): ListTasksResponse {
  return parseAgentResponse(ListTasksResponseSchema, raw, 'ListTasks result');
}

/** A `TaskPushNotificationConfig`. */
export function readPushConfig(raw: unknown): TaskPushNotificationConfig {
  return parseAgentResponse(TaskPushNotificationConfigSchema, raw, 'push config');
}

/** A `ListTaskPushNotificationConfigsResponse`. */
export function readPushConfigList(raw: unknown): ListTaskPushNotificationConfigsResponse {
  return parseAgentResponse(ListTaskPushNotificationConfigsResponseSchema, raw, 'push config list');
}

/** An `AgentCard` (GetExtendedAgentCard). */
export function readAgentCard(raw: unknown): AgentCard {
  return parseAgentCard(raw);
}
