/**
 * The A2A v0.3 wire shapes a server reads (the v0.3.0 JSON schema): objects discriminated by `kind`, task states
 * in lower-case kebab form, `final` on status updates. Only what a v0.3 request carries is parsed here; the
 * translation into v1.0 (`to-v1.ts`) then goes through the v1.0 parser, so the limits of ADR 0031 and ADR 0059
 * apply to v0.3 peers unchanged (docs/guides/v03-peers.md, ADR 0098).
 */
import { z } from 'zod';
import { JsonObjectSchema } from '../schemas/scalars.js';

/**
 * A free-form JSON object (v0.3 `metadata`, `data`), kept as it was sent: zod's record would drop a top-level
 * `__proto__` member in silence (ADR 0031: bad input loses nothing).
 */
const jsonObject = JsonObjectSchema;

/** The v0.3 task states, as written on the wire. */
export const V03_TASK_STATES = [
  'submitted',
  'working',
  'input-required',
  'completed',
  'canceled',
  'failed',
  'rejected',
  'auth-required',
  'unknown',
] as const;

/** A v0.3 task state. */
export type V03TaskState = (typeof V03_TASK_STATES)[number];

export const V03TextPartSchema = z.object({
  kind: z.literal('text'),
  text: z.string(),
  metadata: jsonObject.optional(),
});

const fileBase = { name: z.string().optional(), mimeType: z.string().optional() };

export const V03FilePartSchema = z.object({
  kind: z.literal('file'),
  file: z.union([z.object({ ...fileBase, bytes: z.string() }), z.object({ ...fileBase, uri: z.string() })]),
  metadata: jsonObject.optional(),
});

export const V03DataPartSchema = z.object({
  kind: z.literal('data'),
  data: jsonObject,
  metadata: jsonObject.optional(),
});

export const V03PartSchema = z.discriminatedUnion('kind', [
  V03TextPartSchema,
  V03FilePartSchema,
  V03DataPartSchema,
]);

export const V03MessageSchema = z.object({
  kind: z.literal('message'),
  messageId: z.string().min(1),
  role: z.enum(['user', 'agent']),
  parts: z.array(V03PartSchema),
  contextId: z.string().optional(),
  taskId: z.string().optional(),
  metadata: jsonObject.optional(),
  extensions: z.array(z.string()).optional(),
  referenceTaskIds: z.array(z.string()).optional(),
});

export const V03AuthenticationSchema = z.object({
  schemes: z.array(z.string()).min(1),
  credentials: z.string().optional(),
});

export const V03PushConfigSchema = z.object({
  id: z.string().optional(),
  url: z.string().min(1),
  token: z.string().optional(),
  authentication: V03AuthenticationSchema.optional(),
});

export const V03MessageSendParamsSchema = z.object({
  message: V03MessageSchema,
  configuration: z
    .object({
      acceptedOutputModes: z.array(z.string()).optional(),
      historyLength: z.number().int().nonnegative().optional(),
      pushNotificationConfig: V03PushConfigSchema.optional(),
      blocking: z.boolean().optional(),
    })
    .optional(),
  metadata: jsonObject.optional(),
});

export const V03TaskQueryParamsSchema = z.object({
  id: z.string().min(1),
  historyLength: z.number().int().nonnegative().optional(),
  metadata: jsonObject.optional(),
});

export const V03TaskIdParamsSchema = z.object({
  id: z.string().min(1),
  metadata: jsonObject.optional(),
});

export const V03TaskPushConfigSchema = z.object({
  taskId: z.string().min(1),
  pushNotificationConfig: V03PushConfigSchema,
});

export const V03GetPushConfigParamsSchema = z.object({
  id: z.string().min(1),
  pushNotificationConfigId: z.string().min(1).optional(),
  metadata: jsonObject.optional(),
});

export const V03DeletePushConfigParamsSchema = z.object({
  id: z.string().min(1),
  pushNotificationConfigId: z.string().min(1),
  metadata: jsonObject.optional(),
});

export type V03Part = z.infer<typeof V03PartSchema>;
export type V03Message = z.infer<typeof V03MessageSchema>;
export type V03PushConfig = z.infer<typeof V03PushConfigSchema>;
export type V03MessageSendParams = z.infer<typeof V03MessageSendParamsSchema>;
export type V03TaskPushConfig = z.infer<typeof V03TaskPushConfigSchema>;

/** A v0.3 artifact (written by the server, read by the round-trip tests). */
export interface V03Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: V03Part[];
  metadata?: Record<string, unknown>;
  extensions?: string[];
}

/** A v0.3 task status. */
export interface V03TaskStatus {
  state: V03TaskState;
  message?: V03Message;
  timestamp?: string;
}

/** A v0.3 task (`kind: "task"`). */
export interface V03Task {
  kind: 'task';
  id: string;
  contextId: string;
  status: V03TaskStatus;
  history?: V03Message[];
  artifacts?: V03Artifact[];
  metadata?: Record<string, unknown>;
}

/** A v0.3 status update; `final` marks the last event of the stream. */
export interface V03TaskStatusUpdateEvent {
  kind: 'status-update';
  taskId: string;
  contextId: string;
  status: V03TaskStatus;
  final: boolean;
  metadata?: Record<string, unknown>;
}

/** A v0.3 artifact update. */
export interface V03TaskArtifactUpdateEvent {
  kind: 'artifact-update';
  taskId: string;
  contextId: string;
  artifact: V03Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: Record<string, unknown>;
}

/** What a v0.3 stream carries, and what `message/send` answers. */
export type V03StreamEvent = V03Task | V03Message | V03TaskStatusUpdateEvent | V03TaskArtifactUpdateEvent;
