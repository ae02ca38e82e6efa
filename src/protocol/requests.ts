/**
 * Request and response messages of the eleven A2A v1.0 operations (A2A v1.0). Every request carries an
 * optional `tenant` (A2A v1.0).
 */
import type { JsonObject, Message, Task } from './model.js';
import type { TaskState } from './task-state.js';

/** `AuthenticationInfo`: how the agent authenticates to a webhook. */
export interface AuthenticationInfo {
  scheme: string;
  credentials?: string;
}

/** `TaskPushNotificationConfig` (flat v1.0 form). `taskId` is empty when given inline in a send. */
export interface TaskPushNotificationConfig {
  tenant?: string;
  id?: string;
  taskId?: string;
  url: string;
  token?: string;
  authentication?: AuthenticationInfo;
}

/** `SendMessageConfiguration`. Blocking is the default; `returnImmediately` turns it off (A2A §3.2.2). */
export interface SendMessageConfiguration {
  acceptedOutputModes?: string[];
  taskPushNotificationConfig?: TaskPushNotificationConfig;
  historyLength?: number;
  returnImmediately?: boolean;
}

/** SendMessage and SendStreamingMessage params. */
export interface SendMessageRequest {
  tenant?: string;
  message: Message;
  configuration?: SendMessageConfiguration;
  metadata?: JsonObject;
}

/** GetTask params. */
export interface GetTaskRequest {
  tenant?: string;
  id: string;
  historyLength?: number;
}

/** ListTasks params (cursor paging, newest first). */
export interface ListTasksRequest {
  tenant?: string;
  contextId?: string;
  status?: TaskState;
  pageSize?: number;
  pageToken?: string;
  historyLength?: number;
  statusTimestampAfter?: string;
  includeArtifacts?: boolean;
}

/** ListTasks result. `nextPageToken` is always present, `""` on the last page. */
export interface ListTasksResponse {
  tasks: Task[];
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

/** CancelTask params. */
export interface CancelTaskRequest {
  tenant?: string;
  id: string;
  metadata?: JsonObject;
}

/** SubscribeToTask params. */
export interface SubscribeToTaskRequest {
  tenant?: string;
  id: string;
}

/** GetTaskPushNotificationConfig and DeleteTaskPushNotificationConfig params. */
export interface TaskPushNotificationConfigRef {
  tenant?: string;
  taskId: string;
  id: string;
}

/** ListTaskPushNotificationConfigs params. */
export interface ListTaskPushNotificationConfigsRequest {
  tenant?: string;
  taskId: string;
  pageSize?: number;
  pageToken?: string;
}

/** ListTaskPushNotificationConfigs result. */
export interface ListTaskPushNotificationConfigsResponse {
  configs: TaskPushNotificationConfig[];
  nextPageToken?: string;
}

/** GetExtendedAgentCard params. */
export interface GetExtendedAgentCardRequest {
  tenant?: string;
}
