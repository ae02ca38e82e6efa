/**
 * fast-check arbitraries for the A2A v1.0 wire model. Every value is in canonical wire form (what `toWire*`
 * writes): optional strings non-empty, optional arrays non-empty, metadata non-empty, plain bools only when true,
 * timestamps ISO-8601 UTC with milliseconds, bytes standard padded base64. So `parse(write(x))` equals `x`.
 * Other suites import these.
 */
import fc from 'fast-check';
import type {
  AgentCapabilities,
  AgentCard,
  AgentCardSignature,
  AgentExtension,
  AgentInterface,
  AgentSkill,
  Artifact,
  AuthenticationInfo,
  JsonObject,
  ListTasksResponse,
  Message,
  OAuthFlows,
  Part,
  SecurityRequirement,
  SecurityScheme,
  SendMessageConfiguration,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  Task,
  TaskArtifactUpdateEvent,
  TaskPushNotificationConfig,
  TaskState,
  TaskStatus,
  TaskStatusUpdateEvent,
} from '../../src/protocol/index.js';
import { TASK_STATES } from '../../src/protocol/index.js';

/** A non-empty identifier-like string. */
export const arbId: fc.Arbitrary<string> = fc.oneof(fc.uuid(), fc.string({ minLength: 1, maxLength: 12 }));

/** A non-empty free text. */
export const arbText: fc.Arbitrary<string> = fc.string({ minLength: 1, maxLength: 24 });

/** Any JSON value, exactly as JSON would carry it (no `-0`). */
export const arbJsonValue: fc.Arbitrary<unknown> = fc
  .jsonValue({ maxDepth: 2 })
  .map((value): unknown => JSON.parse(JSON.stringify(value)));

/** A non-empty `Struct` with arbitrary JSON values (keys may contain `_`, which must never be renamed). */
export const arbMetadata: fc.Arbitrary<JsonObject> = fc.dictionary(
  fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('context_id', 'message_id', 'a_b', 'task_id')),
  arbJsonValue,
  { minKeys: 1, maxKeys: 4, noNullPrototype: true },
);

/** A canonical wire timestamp. */
export const arbTimestamp: fc.Arbitrary<string> = fc
  .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2199-12-31T23:59:59Z'), noInvalidDate: true })
  .map((date) => date.toISOString());

/** Standard padded base64 of a few bytes. */
export const arbBase64: fc.Arbitrary<string> = fc
  .uint8Array({ maxLength: 24 })
  .map((bytes) => Buffer.from(bytes).toString('base64'));

/** A media type. */
export const arbMediaType: fc.Arbitrary<string> = fc.constantFrom(
  'text/plain',
  'application/json',
  'image/png',
  'application/octet-stream',
);

const arbStrings = fc.array(arbText, { minLength: 1, maxLength: 3 });

/** Any task state, `TASK_STATE_UNSPECIFIED` included (it is readable). */
export const arbTaskState: fc.Arbitrary<TaskState> = fc.constantFrom(...TASK_STATES);

/** A Part: exactly one member, plus optional shared fields. */
export const arbPart: fc.Arbitrary<Part> = fc
  .tuple(
    fc.oneof(
      fc.record({ text: fc.string({ maxLength: 24 }) }),
      fc.record({ raw: arbBase64 }),
      fc.record({ url: fc.webUrl() }),
      fc.record({ data: arbJsonValue }),
    ),
    fc.record(
      { metadata: arbMetadata, filename: arbText, mediaType: arbMediaType },
      { requiredKeys: [], noNullPrototype: true },
    ),
  )
  .map(([member, base]): Part => ({ ...member, ...base }));

/** A Message with a real role and at least one part. */
export const arbMessage: fc.Arbitrary<Message> = fc.record(
  {
    messageId: arbId,
    contextId: arbId,
    taskId: arbId,
    role: fc.constantFrom('ROLE_USER' as const, 'ROLE_AGENT' as const),
    parts: fc.array(arbPart, { minLength: 1, maxLength: 3 }),
    metadata: arbMetadata,
    extensions: arbStrings,
    referenceTaskIds: fc.array(arbId, { minLength: 1, maxLength: 2 }),
  },
  { requiredKeys: ['messageId', 'role', 'parts'], noNullPrototype: true },
);

/** An Artifact with at least one part. */
export const arbArtifact: fc.Arbitrary<Artifact> = fc.record(
  {
    artifactId: arbId,
    name: arbText,
    description: arbText,
    parts: fc.array(arbPart, { minLength: 1, maxLength: 3 }),
    metadata: arbMetadata,
    extensions: arbStrings,
  },
  { requiredKeys: ['artifactId', 'parts'], noNullPrototype: true },
);

/** A TaskStatus. */
export const arbTaskStatus: fc.Arbitrary<TaskStatus> = fc.record(
  { state: arbTaskState, message: arbMessage, timestamp: arbTimestamp },
  { requiredKeys: ['state'], noNullPrototype: true },
);

/** A Task. */
export const arbTask: fc.Arbitrary<Task> = fc.record(
  {
    id: arbId,
    contextId: arbId,
    status: arbTaskStatus,
    artifacts: fc.array(arbArtifact, { minLength: 1, maxLength: 2 }),
    history: fc.array(arbMessage, { minLength: 1, maxLength: 2 }),
    metadata: arbMetadata,
  },
  { requiredKeys: ['id', 'status'], noNullPrototype: true },
);

/** A TaskStatusUpdateEvent. */
export const arbTaskStatusUpdateEvent: fc.Arbitrary<TaskStatusUpdateEvent> = fc.record(
  { taskId: arbId, contextId: arbId, status: arbTaskStatus, metadata: arbMetadata },
  { requiredKeys: ['taskId', 'contextId', 'status'], noNullPrototype: true },
);

/** A TaskArtifactUpdateEvent; `append`/`lastChunk` only when true (plain proto bools). */
export const arbTaskArtifactUpdateEvent: fc.Arbitrary<TaskArtifactUpdateEvent> = fc.record(
  {
    taskId: arbId,
    contextId: arbId,
    artifact: arbArtifact,
    append: fc.constant(true),
    lastChunk: fc.constant(true),
    metadata: arbMetadata,
  },
  { requiredKeys: ['taskId', 'contextId', 'artifact'], noNullPrototype: true },
);

/** A StreamResponse with exactly one member. */
export const arbStreamResponse: fc.Arbitrary<StreamResponse> = fc.oneof(
  arbTask.map((task): StreamResponse => ({ task })),
  arbMessage.map((message): StreamResponse => ({ message })),
  arbTaskStatusUpdateEvent.map((statusUpdate): StreamResponse => ({ statusUpdate })),
  arbTaskArtifactUpdateEvent.map((artifactUpdate): StreamResponse => ({ artifactUpdate })),
);

/** A SendMessageResponse: `{task}` or `{message}`. */
export const arbSendMessageResponse: fc.Arbitrary<SendMessageResponse> = fc.oneof(
  arbTask.map((task): SendMessageResponse => ({ task })),
  arbMessage.map((message): SendMessageResponse => ({ message })),
);

/** An AuthenticationInfo. */
export const arbAuthenticationInfo: fc.Arbitrary<AuthenticationInfo> = fc.record(
  { scheme: fc.constantFrom('Bearer', 'Basic'), credentials: arbText },
  { requiredKeys: ['scheme'], noNullPrototype: true },
);

/** A TaskPushNotificationConfig. */
export const arbTaskPushNotificationConfig: fc.Arbitrary<TaskPushNotificationConfig> = fc.record(
  {
    tenant: arbId,
    id: arbId,
    taskId: arbId,
    url: fc.webUrl(),
    token: arbText,
    authentication: arbAuthenticationInfo,
  },
  { requiredKeys: ['url'], noNullPrototype: true },
);

/** A SendMessageConfiguration (`historyLength` is proto `optional`, so 0 is kept). */
export const arbSendMessageConfiguration: fc.Arbitrary<SendMessageConfiguration> = fc.record(
  {
    acceptedOutputModes: fc.array(arbMediaType, { minLength: 1, maxLength: 2 }),
    taskPushNotificationConfig: arbTaskPushNotificationConfig,
    historyLength: fc.nat({ max: 1000 }),
    returnImmediately: fc.constant(true),
  },
  { requiredKeys: [], noNullPrototype: true },
);

/** SendMessage params. */
export const arbSendMessageRequest: fc.Arbitrary<SendMessageRequest> = fc.record(
  { tenant: arbId, message: arbMessage, configuration: arbSendMessageConfiguration, metadata: arbMetadata },
  { requiredKeys: ['message'], noNullPrototype: true },
);

/** A ListTasksResponse. */
export const arbListTasksResponse: fc.Arbitrary<ListTasksResponse> = fc.record({
  tasks: fc.array(arbTask, { maxLength: 2 }),
  nextPageToken: fc.string({ maxLength: 12 }),
  pageSize: fc.integer({ min: 1, max: 100 }),
  totalSize: fc.nat(),
});

// `__proto__` is refused as a map key (schemas/scalars.ts `wireMap`; refusals.test.ts), so valid cards never hold it.
const arbScopeName = fc.string({ minLength: 1, maxLength: 10 }).filter((k) => k !== '__proto__');
const arbScopes = fc.dictionary(arbScopeName, fc.string({ maxLength: 10 }), {
  maxKeys: 2,
  noNullPrototype: true,
});
const opt = { noNullPrototype: true } as const;

/** OAuthFlows with exactly one flow (a oneof in v1.0). */
export const arbOAuthFlows: fc.Arbitrary<OAuthFlows> = fc.oneof(
  fc
    .record(
      {
        authorizationUrl: fc.webUrl(),
        tokenUrl: fc.webUrl(),
        refreshUrl: fc.webUrl(),
        scopes: arbScopes,
        pkceRequired: fc.constant(true),
      },
      { requiredKeys: ['authorizationUrl', 'tokenUrl'], ...opt },
    )
    .map((authorizationCode): OAuthFlows => ({ authorizationCode })),
  fc
    .record({ tokenUrl: fc.webUrl(), scopes: arbScopes }, { requiredKeys: ['tokenUrl'], ...opt })
    .map((clientCredentials): OAuthFlows => ({ clientCredentials })),
  fc
    .record(
      { deviceAuthorizationUrl: fc.webUrl(), tokenUrl: fc.webUrl(), scopes: arbScopes },
      { requiredKeys: ['deviceAuthorizationUrl', 'tokenUrl'], ...opt },
    )
    .map((deviceCode): OAuthFlows => ({ deviceCode })),
);

/** A SecurityScheme with exactly one member. */
export const arbSecurityScheme: fc.Arbitrary<SecurityScheme> = fc.oneof(
  fc
    .record(
      { description: arbText, location: fc.constantFrom('query', 'header', 'cookie'), name: arbText },
      { requiredKeys: ['location', 'name'], ...opt },
    )
    .map((apiKeySecurityScheme): SecurityScheme => ({ apiKeySecurityScheme })),
  fc
    .record(
      { description: arbText, scheme: fc.constantFrom('Bearer', 'Basic'), bearerFormat: fc.constant('JWT') },
      { requiredKeys: ['scheme'], ...opt },
    )
    .map((httpAuthSecurityScheme): SecurityScheme => ({ httpAuthSecurityScheme })),
  fc
    .record(
      { description: arbText, flows: arbOAuthFlows, oauth2MetadataUrl: fc.webUrl() },
      { requiredKeys: ['flows'], ...opt },
    )
    .map((oauth2SecurityScheme): SecurityScheme => ({ oauth2SecurityScheme })),
  fc
    .record(
      { description: arbText, openIdConnectUrl: fc.webUrl() },
      { requiredKeys: ['openIdConnectUrl'], ...opt },
    )
    .map((openIdConnectSecurityScheme): SecurityScheme => ({ openIdConnectSecurityScheme })),
  fc
    .record({ description: arbText }, { requiredKeys: [], ...opt })
    .map((mtlsSecurityScheme): SecurityScheme => ({ mtlsSecurityScheme })),
);

/** A SecurityRequirement; scheme names may contain `_` and are never renamed. */
export const arbSecurityRequirement: fc.Arbitrary<SecurityRequirement> = fc.record({
  schemes: fc.dictionary(
    fc.constantFrom('oidc', 'api_key', 'my_oauth'),
    fc.record({ list: fc.array(fc.constantFrom('openid', 'email', 'read:tasks'), { maxLength: 2 }) }),
    { minKeys: 1, maxKeys: 2, noNullPrototype: true },
  ),
});

const arbInterface: fc.Arbitrary<AgentInterface> = fc.record(
  {
    url: fc.webUrl(),
    protocolBinding: fc.constantFrom('JSONRPC', 'HTTP+JSON', 'GRPC'),
    protocolVersion: fc.constantFrom('1.0', '0.3'),
    tenant: arbId,
  },
  { requiredKeys: ['url', 'protocolBinding', 'protocolVersion'], ...opt },
);

const arbExtension: fc.Arbitrary<AgentExtension> = fc.record(
  { uri: fc.webUrl(), description: arbText, required: fc.constant(true), params: arbMetadata },
  { requiredKeys: ['uri'], ...opt },
);

const arbCapabilities: fc.Arbitrary<AgentCapabilities> = fc.record(
  {
    streaming: fc.boolean(),
    pushNotifications: fc.boolean(),
    extensions: fc.array(arbExtension, { minLength: 1, maxLength: 2 }),
    extendedAgentCard: fc.boolean(),
  },
  { requiredKeys: [], ...opt },
);

const arbSkill: fc.Arbitrary<AgentSkill> = fc.record(
  {
    id: arbId,
    name: fc.string({ maxLength: 12 }),
    description: fc.string({ maxLength: 24 }),
    tags: fc.array(arbText, { maxLength: 3 }),
    examples: arbStrings,
    inputModes: fc.array(arbMediaType, { minLength: 1, maxLength: 2 }),
    outputModes: fc.array(arbMediaType, { minLength: 1, maxLength: 2 }),
    securityRequirements: fc.array(arbSecurityRequirement, { minLength: 1, maxLength: 2 }),
  },
  { requiredKeys: ['id', 'name', 'description', 'tags'], ...opt },
);

const arbSignature: fc.Arbitrary<AgentCardSignature> = fc.record(
  {
    protected: arbBase64.filter((s) => s !== ''),
    signature: arbBase64.filter((s) => s !== ''),
    header: arbMetadata,
  },
  { requiredKeys: ['protected', 'signature'], ...opt },
);

/** An AgentCard with at least one interface. */
export const arbAgentCard: fc.Arbitrary<AgentCard> = fc.record(
  {
    name: fc.string({ maxLength: 12 }),
    description: fc.string({ maxLength: 24 }),
    supportedInterfaces: fc.array(arbInterface, { minLength: 1, maxLength: 3 }),
    provider: fc.record({ url: fc.webUrl(), organization: arbText }),
    version: fc.constantFrom('1.0.0', '2.3.1'),
    documentationUrl: fc.oneof(fc.webUrl(), fc.constant('')),
    capabilities: arbCapabilities,
    securitySchemes: fc.dictionary(fc.constantFrom('oidc', 'api_key', 'bearer'), arbSecurityScheme, {
      minKeys: 1,
      maxKeys: 2,
      noNullPrototype: true,
    }),
    securityRequirements: fc.array(arbSecurityRequirement, { minLength: 1, maxLength: 2 }),
    defaultInputModes: fc.array(arbMediaType, { maxLength: 2 }),
    defaultOutputModes: fc.array(arbMediaType, { maxLength: 2 }),
    skills: fc.array(arbSkill, { maxLength: 2 }),
    signatures: fc.array(arbSignature, { minLength: 1, maxLength: 2 }),
    iconUrl: fc.webUrl(),
  },
  {
    requiredKeys: [
      'name',
      'description',
      'supportedInterfaces',
      'version',
      'capabilities',
      'defaultInputModes',
      'defaultOutputModes',
      'skills',
    ],
    ...opt,
  },
);
