/**
 * What a v0.3 agent answers, read into v1.0 (the client side of ADR 0098, ADR 0103): the bare task or message of
 * `message/send`, the `kind`-discriminated stream events (`final` dropped: a v1.0 stream's end is its signal),
 * the nested push config and the bare array `tasks/pushNotificationConfig/list` answers. Each function checks
 * its v0.3 input against the v0.3 shape (an `InvalidAgentResponseError` naming the field otherwise) and returns
 * v1.0 JSON, which the client then reads with the one v1.0 parser, as it reads a v1.0 agent's answers.
 */
import { z } from 'zod';
import type {
  Artifact,
  Message,
  StreamResponse,
  Task,
  TaskArtifactUpdateEvent,
  TaskStatus,
} from '../model.js';
import { parseAgentResponse } from '../parse.js';
import type { ListTaskPushNotificationConfigsResponse, TaskPushNotificationConfig } from '../requests.js';
import {
  V03_TASK_STATES,
  V03MessageSchema,
  V03PartSchema,
  V03TaskPushConfigSchema,
  type V03TaskPushConfig,
} from './schemas.js';
import { JsonObjectSchema } from '../schemas/scalars.js';
import { stateToV1 } from './states.js';
import { messageToV1, partToV1, pushConfigToV1 } from './to-v1.js';

/** A free-form object, kept whole (zod's record would drop a `__proto__` member). */
const jsonObject = JsonObjectSchema;

const V03StatusSchema = z.object({
  state: z.enum(V03_TASK_STATES),
  message: V03MessageSchema.optional(),
  timestamp: z.string().optional(),
});

const V03ArtifactSchema = z.object({
  artifactId: z.string().min(1),
  name: z.string().optional(),
  description: z.string().optional(),
  parts: z.array(V03PartSchema),
  metadata: jsonObject.optional(),
  extensions: z.array(z.string()).optional(),
});

/** A v0.3 task as an agent sends it. */
export const V03TaskSchema = z.object({
  kind: z.literal('task'),
  id: z.string().min(1),
  contextId: z.string(),
  status: V03StatusSchema,
  history: z.array(V03MessageSchema).optional(),
  artifacts: z.array(V03ArtifactSchema).optional(),
  metadata: jsonObject.optional(),
});

const V03StatusUpdateSchema = z.object({
  kind: z.literal('status-update'),
  taskId: z.string().min(1),
  contextId: z.string(),
  status: V03StatusSchema,
  final: z.boolean().optional(),
  metadata: jsonObject.optional(),
});

const V03ArtifactUpdateSchema = z.object({
  kind: z.literal('artifact-update'),
  taskId: z.string().min(1),
  contextId: z.string(),
  artifact: V03ArtifactSchema,
  append: z.boolean().optional(),
  lastChunk: z.boolean().optional(),
  metadata: jsonObject.optional(),
});

/** One v0.3 stream event (also what `message/send` answers: a task or a message). */
export const V03StreamEventSchema = z.discriminatedUnion('kind', [
  V03TaskSchema,
  V03MessageSchema,
  V03StatusUpdateSchema,
  V03ArtifactUpdateSchema,
]);

type V03ReadTask = z.infer<typeof V03TaskSchema>;

function statusToV1(s: z.infer<typeof V03StatusSchema>): TaskStatus {
  const out: TaskStatus = { state: stateToV1(s.state) };
  if (s.message !== undefined) out.message = messageToV1(s.message);
  if (s.timestamp !== undefined) out.timestamp = s.timestamp;
  return out;
}

function artifactToV1(a: z.infer<typeof V03ArtifactSchema>): Artifact {
  const out: Artifact = { artifactId: a.artifactId, parts: a.parts.map(partToV1) };
  if (a.name !== undefined) out.name = a.name;
  if (a.description !== undefined) out.description = a.description;
  if (a.metadata !== undefined) out.metadata = { ...a.metadata };
  if (a.extensions !== undefined) out.extensions = [...a.extensions];
  return out;
}

function readTaskToV1(t: V03ReadTask): Task {
  const out: Task = { id: t.id, contextId: t.contextId, status: statusToV1(t.status) };
  if (t.history !== undefined) out.history = t.history.map(messageToV1);
  if (t.artifacts !== undefined) out.artifacts = t.artifacts.map(artifactToV1);
  if (t.metadata !== undefined) out.metadata = { ...t.metadata };
  return out;
}

/** A v0.3 task (`tasks/get`, `tasks/cancel`) as a v1.0 task. */
export function taskResultToV1(raw: unknown): Task {
  return readTaskToV1(parseAgentResponse(V03TaskSchema, raw, 'v0.3 task'));
}

/** One v0.3 stream event as a v1.0 `StreamResponse`. */
export function streamEventToV1(raw: unknown): StreamResponse {
  const e = parseAgentResponse(V03StreamEventSchema, raw, 'v0.3 stream event');
  switch (e.kind) {
    case 'task':
      return { task: readTaskToV1(e) };
    case 'message':
      return { message: messageToV1(e) };
    case 'status-update': {
      const u = { taskId: e.taskId, contextId: e.contextId, status: statusToV1(e.status) };
      return { statusUpdate: e.metadata === undefined ? u : { ...u, metadata: { ...e.metadata } } };
    }
    case 'artifact-update': {
      const u: TaskArtifactUpdateEvent = {
        taskId: e.taskId,
        contextId: e.contextId,
        artifact: artifactToV1(e.artifact),
      };
      if (e.append !== undefined) u.append = e.append;
      if (e.lastChunk !== undefined) u.lastChunk = e.lastChunk;
      if (e.metadata !== undefined) u.metadata = { ...e.metadata };
      return { artifactUpdate: u };
    }
  }
}

/** The `message/send` result (a bare task or message) as v1.0's `{ task }` or `{ message }`. */
export function sendResultToV1(raw: unknown): { task: Task } | { message: Message } {
  const e = streamEventToV1(raw);
  if ('task' in e || 'message' in e) return e;
  return parseAgentResponse(z.never(), raw, 'v0.3 message/send result (a task or a message)');
}

function configToV1(c: V03TaskPushConfig): TaskPushNotificationConfig {
  return pushConfigToV1(c.pushNotificationConfig, c.taskId);
}

/** A v0.3 `TaskPushNotificationConfig` (`set`, `get`) as the flat v1.0 form. */
export function pushConfigResultToV1(raw: unknown): TaskPushNotificationConfig {
  return configToV1(parseAgentResponse(V03TaskPushConfigSchema, raw, 'v0.3 push config'));
}

/** The bare array `tasks/pushNotificationConfig/list` answers, as v1.0's `{ configs }` (one whole page). */
export function pushConfigListToV1(raw: unknown): ListTaskPushNotificationConfigsResponse {
  const list = parseAgentResponse(z.array(V03TaskPushConfigSchema), raw, 'v0.3 push config list');
  return { configs: list.map(configToV1) };
}
