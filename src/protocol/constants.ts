/**
 * Method names, header names, media types and paths of A2A v1.0 (A2A v1.0).
 */

/** The eleven JSON-RPC methods (PascalCase, equal to the gRPC names). */
export const METHODS = [
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
] as const;

/** One A2A operation. */
export type A2AMethod = (typeof METHODS)[number];

/** The two operations whose result is a stream. */
export const STREAMING_METHODS: ReadonlySet<A2AMethod> = new Set(['SendStreamingMessage', 'SubscribeToTask']);

/** The protocol version this SDK serves and sends. */
export const PROTOCOL_VERSION = '1.0';

/** Service-parameter headers. */
export const HEADER_VERSION = 'A2A-Version';
export const HEADER_EXTENSIONS = 'A2A-Extensions';

/**
 * How an a2a-once server admitted a send, on the answer to SendMessage and SendStreamingMessage (not an A2A
 * header; other servers do not send it). `replayed`: the message's key (or its messageId, for a task) was already
 * the server's, so the answer is that earlier send's task and the agent did not run again; `created`: a new task;
 * `continued`: a new turn of an existing task (docs/semantics.md §2, ADR 0086).
 */
export const HEADER_ADMISSION = 'A2A-Once-Admission';

/** The values of `A2A-Once-Admission`. */
export type AdmissionOutcome = 'created' | 'continued' | 'replayed';

/**
 * Media types. v1.0.0 named `application/json` for every binding; v1.0.1 made `application/a2a+json` the type of
 * the HTTP+JSON binding. Both travel, so both are read (ADR 0042).
 */
export const MEDIA_JSON = 'application/json';
export const MEDIA_A2A_JSON = 'application/a2a+json';
export const MEDIA_SSE = 'text/event-stream';

/** The `Accept` of a client that reads either JSON type and prefers the v1.0.1 one (as `@a2a-js/sdk` sends it). */
export const ACCEPT_A2A_OR_JSON = `${MEDIA_A2A_JSON}, ${MEDIA_JSON}`;

/** Where the public card is served (A2A §8.2). */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

/** Binding names as they appear in `AgentInterface.protocolBinding`. */
export const BINDING_JSONRPC = 'JSONRPC';
export const BINDING_HTTP_JSON = 'HTTP+JSON';
export const BINDING_GRPC = 'GRPC';
