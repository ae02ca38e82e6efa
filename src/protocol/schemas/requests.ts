/**
 * Schemas of the request and response messages of the eleven operations (A2A v1.0), tied to `requests.ts`.
 * Every request carries an optional `tenant` (A2A v1.0).
 */
import { z } from 'zod';
import { wireObject } from './lenient.js';
import { MessageSchema, TaskSchema } from './core.js';
import {
  JsonObjectSchema,
  TaskStateSchema,
  nonEmptyString,
  stringArray,
  wireBool,
  wireInt,
  wireTimestamp,
} from './scalars.js';

/** `historyLength`: unset means "server default", 0 means "no history", n > 0 at most n (A2A v1.0). */
const historyLength = wireInt(0).optional();

/** `AuthenticationInfo`: `scheme` is REQUIRED (an HTTP auth scheme, e.g. `Bearer`). */
export const AuthenticationInfoSchema = wireObject({
  scheme: nonEmptyString,
  credentials: z.string().optional(),
});

/**
 * `TaskPushNotificationConfig`. `taskId` stays optional: it is empty when the config rides inline in a send
 * (A2A v1.0), and the REST binding fills it from the path; CreateTaskPushNotificationConfig checks it.
 */
export const TaskPushNotificationConfigSchema = wireObject({
  tenant: z.string().optional(),
  id: z.string().optional(),
  taskId: z.string().optional(),
  url: nonEmptyString,
  token: z.string().optional(),
  authentication: AuthenticationInfoSchema.optional(),
});

/** `SendMessageConfiguration`. */
export const SendMessageConfigurationSchema = wireObject({
  acceptedOutputModes: stringArray.optional(),
  taskPushNotificationConfig: TaskPushNotificationConfigSchema.optional(),
  historyLength,
  returnImmediately: wireBool.optional(),
});

/** `SendMessageRequest`: params of SendMessage and SendStreamingMessage. */
export const SendMessageRequestSchema = wireObject({
  tenant: z.string().optional(),
  message: MessageSchema,
  configuration: SendMessageConfigurationSchema.optional(),
  metadata: JsonObjectSchema.optional(),
});

/** `GetTaskRequest`. */
export const GetTaskRequestSchema = wireObject({
  tenant: z.string().optional(),
  id: nonEmptyString,
  historyLength,
});

/** `ListTasksRequest`. `pageSize` is 1..100 when set; invalid values are validation errors (A2A v1.0). */
export const ListTasksRequestSchema = wireObject({
  tenant: z.string().optional(),
  contextId: z.string().optional(),
  status: TaskStateSchema.optional(),
  pageSize: wireInt(1, 100).optional(),
  pageToken: z.string().optional(),
  historyLength,
  statusTimestampAfter: wireTimestamp.optional(),
  includeArtifacts: wireBool.optional(),
});

/**
 * `ListTasksResponse`. Every field is REQUIRED, but a ProtoJSON writer omits fields at their default (`[]`, `""`,
 * `0`), so a reader fills them back in (A2A v1.0); `nextPageToken` is `""` on the last page.
 */
export const ListTasksResponseSchema = wireObject({
  tasks: z.array(TaskSchema).default(() => []),
  nextPageToken: z.string().default(''),
  pageSize: wireInt(0).default(0),
  totalSize: wireInt(0).default(0),
});

/** `CancelTaskRequest`. */
export const CancelTaskRequestSchema = wireObject({
  tenant: z.string().optional(),
  id: nonEmptyString,
  metadata: JsonObjectSchema.optional(),
});

/** `SubscribeToTaskRequest`. */
export const SubscribeToTaskRequestSchema = wireObject({
  tenant: z.string().optional(),
  id: nonEmptyString,
});

/** `GetTaskPushNotificationConfigRequest` / `DeleteTaskPushNotificationConfigRequest`. */
export const TaskPushNotificationConfigRefSchema = wireObject({
  tenant: z.string().optional(),
  taskId: nonEmptyString,
  id: nonEmptyString,
});

/** `ListTaskPushNotificationConfigsRequest`. A `pageSize` of 0 is the proto default ("server decides"). */
export const ListTaskPushNotificationConfigsRequestSchema = wireObject({
  tenant: z.string().optional(),
  taskId: nonEmptyString,
  pageSize: wireInt(0).optional(),
  pageToken: z.string().optional(),
});

/** `ListTaskPushNotificationConfigsResponse`. */
export const ListTaskPushNotificationConfigsResponseSchema = wireObject({
  // Repeated and not REQUIRED: ProtoJSON omits it when empty.
  configs: z.array(TaskPushNotificationConfigSchema).default(() => []),
  nextPageToken: z.string().optional(),
});

/** `GetExtendedAgentCardRequest` (`tenant` only). */
export const GetExtendedAgentCardRequestSchema = wireObject({
  tenant: z.string().optional(),
});
