/**
 * Entry points for reading the wire: method params (server side, `InvalidParamsError`, -32602) and agent output
 * (client side, `InvalidAgentResponseError`, -32006). Messages name the offending field paths, e.g.
 * `Invalid parameters: message.parts: at least one part is required` (A2A v1.0).
 */
import { fastSendMessageRequest } from './fast-send-request.js';
import { formatPath } from './field-path.js';
import { findUnstorableParam, unstorableTextError } from './storable-text.js';
import type { z } from 'zod';
import type { AgentCard } from './agent-card.js';
import type { A2AMethod } from './constants.js';
import { InvalidAgentResponseError, InvalidParamsError, MethodNotFoundError } from './errors.js';
import type {
  CancelTaskRequest,
  GetExtendedAgentCardRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTasksRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
  TaskPushNotificationConfigRef,
} from './requests.js';
import { AgentCardSchema } from './schemas/agent-card.js';
import { describeJson, isPlainRecord, safeParseFast } from './schemas/lenient.js';
import {
  CancelTaskRequestSchema,
  GetExtendedAgentCardRequestSchema,
  GetTaskRequestSchema,
  ListTaskPushNotificationConfigsRequestSchema,
  ListTasksRequestSchema,
  SendMessageRequestSchema,
  SubscribeToTaskRequestSchema,
  TaskPushNotificationConfigRefSchema,
  TaskPushNotificationConfigSchema,
} from './schemas/requests.js';
import type { Equals } from './schemas/type-ties.js';

/** The params schema of each operation (A2A v1.0). */
export const PARAMS_SCHEMAS = {
  SendMessage: SendMessageRequestSchema,
  SendStreamingMessage: SendMessageRequestSchema,
  GetTask: GetTaskRequestSchema,
  ListTasks: ListTasksRequestSchema,
  CancelTask: CancelTaskRequestSchema,
  SubscribeToTask: SubscribeToTaskRequestSchema,
  CreateTaskPushNotificationConfig: TaskPushNotificationConfigSchema,
  GetTaskPushNotificationConfig: TaskPushNotificationConfigRefSchema,
  ListTaskPushNotificationConfigs: ListTaskPushNotificationConfigsRequestSchema,
  DeleteTaskPushNotificationConfig: TaskPushNotificationConfigRefSchema,
  GetExtendedAgentCard: GetExtendedAgentCardRequestSchema,
} as const satisfies Record<A2AMethod, z.ZodType>;

interface ParamsByMethod {
  SendMessage: SendMessageRequest;
  SendStreamingMessage: SendMessageRequest;
  GetTask: GetTaskRequest;
  ListTasks: ListTasksRequest;
  CancelTask: CancelTaskRequest;
  SubscribeToTask: SubscribeToTaskRequest;
  CreateTaskPushNotificationConfig: TaskPushNotificationConfig;
  GetTaskPushNotificationConfig: TaskPushNotificationConfigRef;
  ListTaskPushNotificationConfigs: ListTaskPushNotificationConfigsRequest;
  DeleteTaskPushNotificationConfig: TaskPushNotificationConfigRef;
  GetExtendedAgentCard: GetExtendedAgentCardRequest;
}

/** The hand-written params type of an operation. */
export type ParamsOf<M extends A2AMethod> = ParamsByMethod[M];

/** Compile-time: each method's schema yields exactly its params type (a `false` is a compile error). */
export const PARAMS_TIES: { [M in A2AMethod]: Equals<z.output<(typeof PARAMS_SCHEMAS)[M]>, ParamsOf<M>> } = {
  SendMessage: true,
  SendStreamingMessage: true,
  GetTask: true,
  ListTasks: true,
  CancelTask: true,
  SubscribeToTask: true,
  CreateTaskPushNotificationConfig: true,
  GetTaskPushNotificationConfig: true,
  ListTaskPushNotificationConfigs: true,
  DeleteTaskPushNotificationConfig: true,
  GetExtendedAgentCard: true,
};

/** One invalid field, in the shape of `google.rpc.BadRequest.FieldViolation` (A2A v1.0). */
export interface FieldViolation {
  /** Dotted path with `[i]` for array items, e.g. `message.parts[0].text`; `""` for the value itself. */
  field: string;
  description: string;
}

/** The outcome of a non-throwing parse. */
export type SafeParseResult<T> =
  { success: true; data: T } | { success: false; message: string; violations: FieldViolation[] };

/** At most this many violations go into an error message; a huge invalid array must not make a huge error. */
const MAX_REPORTED = 5;

/** Renders a zod issue path: `['message', 'parts', 0, 'text']` → `message.parts[0].text`. */
export { formatPath };

/** The field violations of a zod error, in order. */
export function fieldViolations(error: z.ZodError): FieldViolation[] {
  return error.issues.map((issue) => ({ field: formatPath(issue.path), description: issue.message }));
}

function describeViolations(violations: readonly FieldViolation[]): string {
  const shown = violations
    .slice(0, MAX_REPORTED)
    .map((v) => (v.field === '' ? v.description : `${v.field}: ${v.description}`));
  const more = violations.length - shown.length;
  return shown.join('; ') + (more > 0 ? `; and ${more} more` : '');
}

/**
 * Parses without throwing. `what` starts the message (`Invalid ${what}: ...`). Use it where a failure is a normal
 * outcome (for example a best-effort read of a push payload).
 */
export function safeParseWith<T>(schema: z.ZodType<T>, raw: unknown, what: string): SafeParseResult<T> {
  const result = safeParseFast(schema, raw);
  if (result.success) return { success: true, data: result.data };
  const violations = fieldViolations(result.error);
  return { success: false, message: `Invalid ${what}: ${describeViolations(violations)}`, violations };
}

/** Parses `raw` with `schema`, or throws `InvalidParamsError` naming the invalid fields (`Invalid ${what}: ...`). */
export function parseWith<T>(schema: z.ZodType<T>, raw: unknown, what: string): T {
  const result = safeParseWith(schema, raw, what);
  if (result.success) return result.data;
  throw new InvalidParamsError({ message: result.message, metadata: violationMetadata(result.violations) });
}

/** ErrorInfo metadata values are strings (A2A v1.0): the invalid field paths, comma-separated. */
function violationMetadata(violations: readonly FieldViolation[]): Record<string, string> {
  return { fields: [...new Set(violations.map((v) => v.field))].slice(0, MAX_REPORTED).join(',') };
}

/**
 * Parses the params of `method`. Throws `InvalidParamsError` (-32602) when they are not an object or do not
 * validate or hold a name no task store can keep (U+0000, a lone surrogate: ADR 0059), and `MethodNotFoundError`
 * for a name that is not an A2A method. GetExtendedAgentCard may omit params (A2A v1.0), which reads as `{}`.
 */
export function parseParams<M extends A2AMethod>(method: M, raw: unknown): ParamsOf<M> {
  const schema = (PARAMS_SCHEMAS as Partial<Record<string, z.ZodType>>)[method];
  if (schema === undefined) throw new MethodNotFoundError(`Method not found: ${String(method)}`);
  const params = (raw === undefined || raw === null) && method === 'GetExtendedAgentCard' ? {} : raw;
  if (!isPlainRecord(params)) {
    throw new InvalidParamsError(
      `Invalid parameters: params must be a JSON object, got ${describeJson(params)}`,
    );
  }
  const fast =
    method === 'SendMessage' || method === 'SendStreamingMessage'
      ? fastSendMessageRequest(params)
      : undefined;
  // The schema looked up for `method` is PARAMS_SCHEMAS[method], whose output PARAMS_TIES proves is ParamsOf<M>.
  const parsed = (fast ?? parseWith(schema, params, 'parameters')) as ParamsOf<M>;
  // Names no store could hold (ADR 0059). A send's message is checked at admission, for in-process sends too.
  const unstorable = findUnstorableParam(parsed as unknown as Record<string, unknown>);
  if (unstorable) throw unstorableTextError(unstorable);
  return parsed;
}

/**
 * Reads something an agent sent (a result, a stream event, a card) or throws `InvalidAgentResponseError`
 * (-32006, A2A v1.0), which is how a client reports a non-conforming agent.
 */
export function parseAgentResponse<T>(schema: z.ZodType<T>, raw: unknown, what: string): T {
  const result = safeParseWith(schema, raw, what);
  if (result.success) return result.data;
  throw new InvalidAgentResponseError({
    message: result.message,
    metadata: violationMetadata(result.violations),
  });
}

/** Reads an agent card (public or extended), or throws `InvalidAgentResponseError`. */
export function parseAgentCard(raw: unknown): AgentCard {
  return parseAgentResponse(AgentCardSchema, raw, 'agent card');
}
