/**
 * Compile-time ties between the zod schemas and the hand-written wire types: each schema's output type must be
 * identical to its interface, so neither can drift from the other. Nothing here runs; `tsc` fails on a mismatch.
 */
import type { z } from 'zod';
import type * as card from '../agent-card.js';
import type * as model from '../model.js';
import type * as req from '../requests.js';
import type { Role, TaskState } from '../task-state.js';
import type * as cardSchemas from './agent-card.js';
import type * as core from './core.js';
import type * as reqSchemas from './requests.js';
import type { JsonObjectSchema, RoleSchema, TaskStateSchema } from './scalars.js';

/**
 * `true` when A and B are identical types (not merely mutually assignable: optionality, `readonly` and
 * `unknown`-vs-`any` all count).
 */
export type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** `true` when the output of schema S is identical to T. */
export type Ties<S extends z.ZodType, T> = Equals<z.output<S>, T>;

/** One entry per hand-written type. A `false` here is a compile error. */
export const TYPE_TIES: {
  // task-state.ts, model.ts
  TaskState: Ties<typeof TaskStateSchema, TaskState>;
  Role: Ties<typeof RoleSchema, Role>;
  JsonObject: Ties<typeof JsonObjectSchema, model.JsonObject>;
  PartBase: Ties<typeof core.PartBaseSchema, model.PartBase>;
  TextPart: Ties<typeof core.TextPartSchema, model.TextPart>;
  RawPart: Ties<typeof core.RawPartSchema, model.RawPart>;
  UrlPart: Ties<typeof core.UrlPartSchema, model.UrlPart>;
  DataPart: Ties<typeof core.DataPartSchema, model.DataPart>;
  Part: Ties<typeof core.PartSchema, model.Part>;
  Message: Ties<typeof core.MessageSchema, model.Message>;
  Artifact: Ties<typeof core.ArtifactSchema, model.Artifact>;
  TaskStatus: Ties<typeof core.TaskStatusSchema, model.TaskStatus>;
  Task: Ties<typeof core.TaskSchema, model.Task>;
  TaskStatusUpdateEvent: Ties<typeof core.TaskStatusUpdateEventSchema, model.TaskStatusUpdateEvent>;
  TaskArtifactUpdateEvent: Ties<typeof core.TaskArtifactUpdateEventSchema, model.TaskArtifactUpdateEvent>;
  StreamResponse: Ties<typeof core.StreamResponseSchema, model.StreamResponse>;
  SendMessageResponse: Ties<typeof core.SendMessageResponseSchema, model.SendMessageResponse>;
  // requests.ts
  AuthenticationInfo: Ties<typeof reqSchemas.AuthenticationInfoSchema, req.AuthenticationInfo>;
  TaskPushNotificationConfig: Ties<
    typeof reqSchemas.TaskPushNotificationConfigSchema,
    req.TaskPushNotificationConfig
  >;
  SendMessageConfiguration: Ties<
    typeof reqSchemas.SendMessageConfigurationSchema,
    req.SendMessageConfiguration
  >;
  SendMessageRequest: Ties<typeof reqSchemas.SendMessageRequestSchema, req.SendMessageRequest>;
  GetTaskRequest: Ties<typeof reqSchemas.GetTaskRequestSchema, req.GetTaskRequest>;
  ListTasksRequest: Ties<typeof reqSchemas.ListTasksRequestSchema, req.ListTasksRequest>;
  ListTasksResponse: Ties<typeof reqSchemas.ListTasksResponseSchema, req.ListTasksResponse>;
  CancelTaskRequest: Ties<typeof reqSchemas.CancelTaskRequestSchema, req.CancelTaskRequest>;
  SubscribeToTaskRequest: Ties<typeof reqSchemas.SubscribeToTaskRequestSchema, req.SubscribeToTaskRequest>;
  TaskPushNotificationConfigRef: Ties<
    typeof reqSchemas.TaskPushNotificationConfigRefSchema,
    req.TaskPushNotificationConfigRef
  >;
  ListTaskPushNotificationConfigsRequest: Ties<
    typeof reqSchemas.ListTaskPushNotificationConfigsRequestSchema,
    req.ListTaskPushNotificationConfigsRequest
  >;
  ListTaskPushNotificationConfigsResponse: Ties<
    typeof reqSchemas.ListTaskPushNotificationConfigsResponseSchema,
    req.ListTaskPushNotificationConfigsResponse
  >;
  GetExtendedAgentCardRequest: Ties<
    typeof reqSchemas.GetExtendedAgentCardRequestSchema,
    req.GetExtendedAgentCardRequest
  >;
  // agent-card.ts
  AgentInterface: Ties<typeof cardSchemas.AgentInterfaceSchema, card.AgentInterface>;
  AgentExtension: Ties<typeof cardSchemas.AgentExtensionSchema, card.AgentExtension>;
  AgentCapabilities: Ties<typeof cardSchemas.AgentCapabilitiesSchema, card.AgentCapabilities>;
  AgentProvider: Ties<typeof cardSchemas.AgentProviderSchema, card.AgentProvider>;
  StringList: Ties<typeof cardSchemas.StringListSchema, card.StringList>;
  SecurityRequirement: Ties<typeof cardSchemas.SecurityRequirementSchema, card.SecurityRequirement>;
  OAuthFlows: Ties<typeof cardSchemas.OAuthFlowsSchema, card.OAuthFlows>;
  SecurityScheme: Ties<typeof cardSchemas.SecuritySchemeSchema, card.SecurityScheme>;
  AgentSkill: Ties<typeof cardSchemas.AgentSkillSchema, card.AgentSkill>;
  AgentCardSignature: Ties<typeof cardSchemas.AgentCardSignatureSchema, card.AgentCardSignature>;
  AgentCard: Ties<typeof cardSchemas.AgentCardSchema, card.AgentCard>;
} = {
  TaskState: true,
  Role: true,
  JsonObject: true,
  PartBase: true,
  TextPart: true,
  RawPart: true,
  UrlPart: true,
  DataPart: true,
  Part: true,
  Message: true,
  Artifact: true,
  TaskStatus: true,
  Task: true,
  TaskStatusUpdateEvent: true,
  TaskArtifactUpdateEvent: true,
  StreamResponse: true,
  SendMessageResponse: true,
  AuthenticationInfo: true,
  TaskPushNotificationConfig: true,
  SendMessageConfiguration: true,
  SendMessageRequest: true,
  GetTaskRequest: true,
  ListTasksRequest: true,
  ListTasksResponse: true,
  CancelTaskRequest: true,
  SubscribeToTaskRequest: true,
  TaskPushNotificationConfigRef: true,
  ListTaskPushNotificationConfigsRequest: true,
  ListTaskPushNotificationConfigsResponse: true,
  GetExtendedAgentCardRequest: true,
  AgentInterface: true,
  AgentExtension: true,
  AgentCapabilities: true,
  AgentProvider: true,
  StringList: true,
  SecurityRequirement: true,
  OAuthFlows: true,
  SecurityScheme: true,
  AgentSkill: true,
  AgentCardSignature: true,
  AgentCard: true,
};
