/**
 * Strict writing: every `toWire*` function returns the canonical ProtoJSON form of a value (A2A v1.0) as a new
 * plain object. camelCase keys only; `undefined` and fields at their proto default (`""`, `false`, empty
 * non-required arrays, empty `metadata`) are omitted; REQUIRED fields are always written, even when empty;
 * fields the proto declares `optional` are written whenever set; timestamps become ISO-8601 UTC with
 * milliseconds; `bytes` become standard padded base64. Unknown extra properties of the input are not written.
 *
 * Inputs are never mutated. Free-form values (`metadata`, `Part.data`, `params`, `header`) are shared with the
 * input, not copied: they are written as they are.
 */
import type {
  AgentCapabilities,
  AgentCard,
  AgentCardSignature,
  AgentExtension,
  AgentInterface,
  AgentSkill,
  OAuthFlows,
  SecurityRequirement,
  SecurityScheme,
} from './agent-card.js';
import { InternalError } from './errors.js';
import type {
  Artifact,
  Message,
  Part,
  SendMessageResponse,
  StreamResponse,
  Task,
  TaskArtifactUpdateEvent,
  TaskStatus,
  TaskStatusUpdateEvent,
} from './model.js';
import type {
  ListTaskPushNotificationConfigsResponse,
  ListTasksResponse,
  SendMessageConfiguration,
  SendMessageRequest,
  TaskPushNotificationConfig,
} from './requests.js';
import { normalizeBase64 } from './schemas/scalars.js';
import { normalizeTimestamp } from './timestamp.js';

/** A string field that is not at its default. */
function set(value: string | undefined): value is string {
  return value !== undefined && value !== '';
}

/** A repeated field that is not empty. */
function some<T>(value: readonly T[] | undefined): value is readonly T[] {
  return value !== undefined && value.length > 0;
}

/** A `Struct`/map that is not empty. */
function hasKeys<T extends object>(value: T | undefined): value is T {
  if (value === undefined || value === null) return false;
  for (const _ in value) return true;
  return false;
}

function timestamp(value: string): string {
  const normalized = normalizeTimestamp(value);
  if (normalized === undefined)
    throw new InternalError(`Cannot write an invalid timestamp: ${JSON.stringify(value)}`);
  return normalized;
}

/** Writes a Part: its oneof member always (even `""`), plus the shared fields that are set. */
export function toWirePart(part: Part): Part {
  let out: Part;
  if ('text' in part) out = { text: part.text };
  else if ('raw' in part) {
    const raw = normalizeBase64(part.raw);
    if (raw === undefined) throw new InternalError('Cannot write a part whose raw bytes are not base64');
    out = { raw };
  } else if ('url' in part) out = { url: part.url };
  // `Value` has no "unset": an undefined payload is written as JSON null.
  else out = { data: part.data === undefined ? null : part.data };
  if (hasKeys(part.metadata)) out.metadata = part.metadata;
  if (set(part.filename)) out.filename = part.filename;
  if (set(part.mediaType)) out.mediaType = part.mediaType;
  return out;
}

/** Writes a Message. */
export function toWireMessage(message: Message): Message {
  const out: Message = {
    messageId: message.messageId,
    role: message.role,
    parts: message.parts.map(toWirePart),
  };
  if (set(message.contextId)) out.contextId = message.contextId;
  if (set(message.taskId)) out.taskId = message.taskId;
  if (hasKeys(message.metadata)) out.metadata = message.metadata;
  if (some(message.extensions)) out.extensions = [...message.extensions];
  if (some(message.referenceTaskIds)) out.referenceTaskIds = [...message.referenceTaskIds];
  return out;
}

/** Writes an Artifact. */
export function toWireArtifact(artifact: Artifact): Artifact {
  const out: Artifact = { artifactId: artifact.artifactId, parts: artifact.parts.map(toWirePart) };
  if (set(artifact.name)) out.name = artifact.name;
  if (set(artifact.description)) out.description = artifact.description;
  if (hasKeys(artifact.metadata)) out.metadata = artifact.metadata;
  if (some(artifact.extensions)) out.extensions = [...artifact.extensions];
  return out;
}

/** Writes a TaskStatus; the timestamp is normalised to UTC with milliseconds. */
export function toWireTaskStatus(status: TaskStatus): TaskStatus {
  const out: TaskStatus = { state: status.state };
  if (status.message !== undefined) out.message = toWireMessage(status.message);
  if (set(status.timestamp)) out.timestamp = timestamp(status.timestamp);
  return out;
}

/** Options of `toWireTask`. */
export interface TaskWriteOptions {
  /**
   * ListTasks `includeArtifacts` (A2A v1.0): `false` drops `artifacts` entirely, `true` always writes it (`[]`
   * when there are none). Unset: written when non-empty.
   */
  includeArtifacts?: boolean;
}

/** Writes a Task. */
export function toWireTask(task: Task, options: TaskWriteOptions = {}): Task {
  const out: Task = { id: task.id, status: toWireTaskStatus(task.status) };
  if (set(task.contextId)) out.contextId = task.contextId;
  if (options.includeArtifacts === true) out.artifacts = (task.artifacts ?? []).map(toWireArtifact);
  else if (options.includeArtifacts === undefined && some(task.artifacts))
    out.artifacts = task.artifacts.map(toWireArtifact);
  if (some(task.history)) out.history = task.history.map(toWireMessage);
  if (hasKeys(task.metadata)) out.metadata = task.metadata;
  return out;
}

/** Writes a TaskStatusUpdateEvent. */
export function toWireTaskStatusUpdateEvent(event: TaskStatusUpdateEvent): TaskStatusUpdateEvent {
  const out: TaskStatusUpdateEvent = {
    taskId: event.taskId,
    contextId: event.contextId,
    status: toWireTaskStatus(event.status),
  };
  if (hasKeys(event.metadata)) out.metadata = event.metadata;
  return out;
}

/** Writes a TaskArtifactUpdateEvent; `append` and `lastChunk` only when true (plain proto bools). */
export function toWireTaskArtifactUpdateEvent(event: TaskArtifactUpdateEvent): TaskArtifactUpdateEvent {
  const out: TaskArtifactUpdateEvent = {
    taskId: event.taskId,
    contextId: event.contextId,
    artifact: toWireArtifact(event.artifact),
  };
  if (event.append === true) out.append = true;
  if (event.lastChunk === true) out.lastChunk = true;
  if (hasKeys(event.metadata)) out.metadata = event.metadata;
  return out;
}

/** Writes a StreamResponse: exactly its one member (A2A v1.0). */
export function toWireStreamResponse(response: StreamResponse): StreamResponse {
  if ('task' in response) return { task: toWireTask(response.task) };
  if ('message' in response) return { message: toWireMessage(response.message) };
  if ('statusUpdate' in response) return { statusUpdate: toWireTaskStatusUpdateEvent(response.statusUpdate) };
  return { artifactUpdate: toWireTaskArtifactUpdateEvent(response.artifactUpdate) };
}

/** Writes a SendMessageResponse: `{task}` or `{message}`, never a bare Task (A2A v1.0). */
export function toWireSendMessageResponse(response: SendMessageResponse): SendMessageResponse {
  return 'task' in response
    ? { task: toWireTask(response.task) }
    : { message: toWireMessage(response.message) };
}

/**
 * Writes a ListTasksResponse. Every field is REQUIRED and written, `nextPageToken` too (`""` on the last page,
 * A2A v1.0). Pass the request's `includeArtifacts` so each task obeys A2A v1.0
 */
export function toWireListTasksResponse(
  response: ListTasksResponse,
  options: TaskWriteOptions = {},
): ListTasksResponse {
  return {
    tasks: response.tasks.map((task) => toWireTask(task, options)),
    nextPageToken: response.nextPageToken,
    pageSize: response.pageSize,
    totalSize: response.totalSize,
  };
}

/** Writes a TaskPushNotificationConfig. The token and credentials are written: callers decide who sees them. */
export function toWireTaskPushNotificationConfig(
  config: TaskPushNotificationConfig,
): TaskPushNotificationConfig {
  const out: TaskPushNotificationConfig = { url: config.url };
  if (set(config.tenant)) out.tenant = config.tenant;
  if (set(config.id)) out.id = config.id;
  if (set(config.taskId)) out.taskId = config.taskId;
  if (set(config.token)) out.token = config.token;
  if (config.authentication !== undefined) {
    const { scheme, credentials } = config.authentication;
    out.authentication = set(credentials) ? { scheme, credentials } : { scheme };
  }
  return out;
}

/** Writes a ListTaskPushNotificationConfigsResponse (`configs` always, as the hand-written type requires it). */
export function toWireListTaskPushNotificationConfigsResponse(
  response: ListTaskPushNotificationConfigsResponse,
): ListTaskPushNotificationConfigsResponse {
  const out: ListTaskPushNotificationConfigsResponse = {
    configs: response.configs.map(toWireTaskPushNotificationConfig),
  };
  if (set(response.nextPageToken)) out.nextPageToken = response.nextPageToken;
  return out;
}

/** Writes a SendMessageConfiguration; `historyLength` is proto `optional`, so written whenever set (even 0). */
export function toWireSendMessageConfiguration(
  configuration: SendMessageConfiguration,
): SendMessageConfiguration {
  const out: SendMessageConfiguration = {};
  if (some(configuration.acceptedOutputModes))
    out.acceptedOutputModes = [...configuration.acceptedOutputModes];
  if (configuration.taskPushNotificationConfig !== undefined)
    out.taskPushNotificationConfig = toWireTaskPushNotificationConfig(
      configuration.taskPushNotificationConfig,
    );
  if (configuration.historyLength !== undefined) out.historyLength = configuration.historyLength;
  if (configuration.returnImmediately === true) out.returnImmediately = true;
  return out;
}

/** Writes a SendMessageRequest (what a client sends). */
export function toWireSendMessageRequest(request: SendMessageRequest): SendMessageRequest {
  const out: SendMessageRequest = { message: toWireMessage(request.message) };
  if (set(request.tenant)) out.tenant = request.tenant;
  if (request.configuration !== undefined)
    out.configuration = toWireSendMessageConfiguration(request.configuration);
  if (hasKeys(request.metadata)) out.metadata = request.metadata;
  return out;
}

function toWireInterface(value: AgentInterface): AgentInterface {
  const out: AgentInterface = {
    url: value.url,
    protocolBinding: value.protocolBinding,
    protocolVersion: value.protocolVersion,
  };
  if (set(value.tenant)) out.tenant = value.tenant;
  return out;
}

function toWireExtension(value: AgentExtension): AgentExtension {
  const out: AgentExtension = { uri: value.uri };
  if (set(value.description)) out.description = value.description;
  if (value.required === true) out.required = true;
  if (hasKeys(value.params)) out.params = value.params;
  return out;
}

function toWireCapabilities(value: AgentCapabilities): AgentCapabilities {
  // streaming, pushNotifications and extendedAgentCard are proto `optional`: written whenever set.
  const out: AgentCapabilities = {};
  if (value.streaming !== undefined) out.streaming = value.streaming;
  if (value.pushNotifications !== undefined) out.pushNotifications = value.pushNotifications;
  if (some(value.extensions)) out.extensions = value.extensions.map(toWireExtension);
  if (value.extendedAgentCard !== undefined) out.extendedAgentCard = value.extendedAgentCard;
  return out;
}

function toWireRequirement(value: SecurityRequirement): SecurityRequirement {
  const schemes: SecurityRequirement['schemes'] = {};
  for (const [name, scopes] of Object.entries(value.schemes)) schemes[name] = { list: [...scopes.list] };
  return { schemes };
}

/**
 * Copies a card sub-object whose fields are strings, bools or string maps, dropping unset, `""` and `false`
 * members except the REQUIRED ones listed in `keep`.
 */
function compact<T extends object>(value: T, ...keep: (keyof T & string)[]): T {
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (member === undefined) continue;
    if ((member === '' || member === false) && !keep.includes(key as keyof T & string)) continue;
    out[key] = typeof member === 'object' && member !== null ? { ...member } : member;
  }
  return out as T;
}

function toWireFlows(flows: OAuthFlows): OAuthFlows {
  const out: OAuthFlows = {};
  if (flows.authorizationCode)
    out.authorizationCode = compact(flows.authorizationCode, 'authorizationUrl', 'tokenUrl');
  if (flows.clientCredentials) out.clientCredentials = compact(flows.clientCredentials, 'tokenUrl');
  if (flows.deviceCode) out.deviceCode = compact(flows.deviceCode, 'deviceAuthorizationUrl', 'tokenUrl');
  if (flows.implicit) out.implicit = compact(flows.implicit, 'authorizationUrl');
  if (flows.password) out.password = compact(flows.password, 'tokenUrl');
  return out;
}

function toWireScheme(scheme: SecurityScheme): SecurityScheme {
  const out: SecurityScheme = {};
  if (scheme.apiKeySecurityScheme)
    out.apiKeySecurityScheme = compact(scheme.apiKeySecurityScheme, 'location', 'name');
  if (scheme.httpAuthSecurityScheme)
    out.httpAuthSecurityScheme = compact(scheme.httpAuthSecurityScheme, 'scheme');
  if (scheme.oauth2SecurityScheme) {
    const { flows, ...rest } = scheme.oauth2SecurityScheme;
    out.oauth2SecurityScheme = { ...compact(rest), flows: toWireFlows(flows) };
  }
  if (scheme.openIdConnectSecurityScheme)
    out.openIdConnectSecurityScheme = compact(scheme.openIdConnectSecurityScheme, 'openIdConnectUrl');
  if (scheme.mtlsSecurityScheme) out.mtlsSecurityScheme = compact(scheme.mtlsSecurityScheme);
  return out;
}

function toWireSkill(skill: AgentSkill): AgentSkill {
  const out: AgentSkill = {
    id: skill.id,
    name: skill.name,
    description: skill.description,
    tags: [...skill.tags],
  };
  if (some(skill.examples)) out.examples = [...skill.examples];
  if (some(skill.inputModes)) out.inputModes = [...skill.inputModes];
  if (some(skill.outputModes)) out.outputModes = [...skill.outputModes];
  if (some(skill.securityRequirements))
    out.securityRequirements = skill.securityRequirements.map(toWireRequirement);
  return out;
}

function toWireSignature(signature: AgentCardSignature): AgentCardSignature {
  const out: AgentCardSignature = { protected: signature.protected, signature: signature.signature };
  if (hasKeys(signature.header)) out.header = signature.header;
  return out;
}

/**
 * Writes an AgentCard (A2A v1.0). REQUIRED arrays are kept even when empty; `documentationUrl` and `iconUrl`
 * are proto `optional`, so written whenever set. This is also the payload to canonicalise for signing once
 * `signatures` is removed (A2A §8.4).
 */
export function toWireAgentCard(card: AgentCard): AgentCard {
  const out: AgentCard = {
    name: card.name,
    description: card.description,
    supportedInterfaces: card.supportedInterfaces.map(toWireInterface),
    version: card.version,
    capabilities: toWireCapabilities(card.capabilities),
    defaultInputModes: [...card.defaultInputModes],
    defaultOutputModes: [...card.defaultOutputModes],
    skills: card.skills.map(toWireSkill),
  };
  if (card.provider !== undefined)
    out.provider = { url: card.provider.url, organization: card.provider.organization };
  if (card.documentationUrl !== undefined) out.documentationUrl = card.documentationUrl;
  if (hasKeys(card.securitySchemes)) {
    const schemes: Record<string, SecurityScheme> = {};
    for (const [name, scheme] of Object.entries(card.securitySchemes)) schemes[name] = toWireScheme(scheme);
    out.securitySchemes = schemes;
  }
  if (some(card.securityRequirements))
    out.securityRequirements = card.securityRequirements.map(toWireRequirement);
  if (some(card.signatures)) out.signatures = card.signatures.map(toWireSignature);
  if (card.iconUrl !== undefined) out.iconUrl = card.iconUrl;
  return out;
}
