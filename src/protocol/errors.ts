/**
 * One `A2AError` hierarchy for every wire error: the A2A errors of the v1.0.1 mapping table (A2A v1.0), the
 * standard JSON-RPC errors, and the errors of our idempotency extension (docs/semantics.md §1–§3). Each class
 * knows its JSON-RPC code, HTTP status, gRPC status name and `google.rpc.ErrorInfo` reason, so every binding
 * renders the same error the same way and a client can rebuild it by reason.
 */

/** `google.rpc.ErrorInfo` type URL (ProtoJSON `Any`). */
export const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
/** ErrorInfo domain of the A2A-defined errors. */
export const A2A_ERROR_DOMAIN = 'a2a-protocol.org';
/** ErrorInfo domain of the errors a2a-once adds (idempotency extension, transport limits). */
export const A2A_ONCE_ERROR_DOMAIN = 'a2a-once';

/** gRPC status names used by the mapping. */
export type GrpcStatusName =
  | 'INVALID_ARGUMENT'
  | 'NOT_FOUND'
  | 'FAILED_PRECONDITION'
  | 'INTERNAL'
  | 'UNAVAILABLE'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'RESOURCE_EXHAUSTED'
  | 'UNKNOWN';

/** `google.rpc.ErrorInfo` as it appears in JSON. */
export interface ErrorInfo {
  '@type': typeof ERROR_INFO_TYPE;
  reason: string;
  domain: string;
  metadata?: Record<string, string>;
}

/** Options every error takes. `metadata` lands in ErrorInfo (values are strings there). */
export interface A2AErrorOptions {
  message?: string;
  metadata?: Record<string, string>;
  cause?: unknown;
  /** Seconds; rendered as `Retry-After` on HTTP. */
  retryAfterSeconds?: number;
}

/** The static description of one kind of wire error. */
export interface A2AErrorSpec {
  readonly name: string;
  readonly code: number;
  readonly httpStatus: number;
  readonly grpcStatus: GrpcStatusName;
  readonly reason: string;
  readonly domain: string;
  readonly defaultMessage: string;
}

const BRAND = Symbol.for('a2a-once.A2AError');

/** Base of every wire error. Subclasses differ only in their spec. */
export class A2AError extends Error {
  /** The spec behind this error (code, status, reason). */
  readonly spec: A2AErrorSpec;
  /** ErrorInfo metadata, string values only. */
  readonly metadata: Record<string, string> | undefined;
  /** Seconds a client should wait before retrying, when the server knows. */
  readonly retryAfterSeconds: number | undefined;

  constructor(spec: A2AErrorSpec, options: A2AErrorOptions = {}) {
    super(
      options.message ?? spec.defaultMessage,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = spec.name;
    this.spec = spec;
    this.metadata =
      options.metadata && Object.keys(options.metadata).length > 0 ? options.metadata : undefined;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /** Brand check, so `instanceof` survives duplicated module copies. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (typeof value !== 'object' || value === null || !(BRAND in value)) return false;
    if (this === A2AError) return true;
    return (
      Object.prototype.isPrototypeOf.call(this.prototype, value) ||
      (value as unknown as A2AError).name === this.name
    );
  }

  /** JSON-RPC error code. */
  get code(): number {
    return this.spec.code;
  }
  /** HTTP status of the REST binding. */
  get httpStatus(): number {
    return this.spec.httpStatus;
  }
  /** gRPC status name. */
  get grpcStatus(): GrpcStatusName {
    return this.spec.grpcStatus;
  }
  /** ErrorInfo reason (UPPER_SNAKE_CASE). */
  get reason(): string {
    return this.spec.reason;
  }

  /** The `google.rpc.ErrorInfo` detail of this error. */
  toErrorInfo(): ErrorInfo {
    const info: ErrorInfo = { '@type': ERROR_INFO_TYPE, reason: this.spec.reason, domain: this.spec.domain };
    if (this.metadata) info.metadata = this.metadata;
    return info;
  }
}
Object.defineProperty(A2AError.prototype, BRAND, { value: true });

function spec(
  name: string,
  code: number,
  httpStatus: number,
  grpcStatus: GrpcStatusName,
  reason: string,
  defaultMessage: string,
  domain = A2A_ERROR_DOMAIN,
): A2AErrorSpec {
  return Object.freeze({ name, code, httpStatus, grpcStatus, reason, domain, defaultMessage });
}

/** Every error kind, keyed by class name. The single source of the mapping table. */
export const ERROR_SPECS = {
  TaskNotFoundError: spec('TaskNotFoundError', -32001, 404, 'NOT_FOUND', 'TASK_NOT_FOUND', 'Task not found'),
  TaskNotCancelableError: spec(
    'TaskNotCancelableError',
    -32002,
    400,
    'FAILED_PRECONDITION',
    'TASK_NOT_CANCELABLE',
    'Task cannot be canceled',
  ),
  PushNotificationNotSupportedError: spec(
    'PushNotificationNotSupportedError',
    -32003,
    400,
    'FAILED_PRECONDITION',
    'PUSH_NOTIFICATION_NOT_SUPPORTED',
    'Push notifications are not supported',
  ),
  UnsupportedOperationError: spec(
    'UnsupportedOperationError',
    -32004,
    400,
    'FAILED_PRECONDITION',
    'UNSUPPORTED_OPERATION',
    'This operation is not supported',
  ),
  ContentTypeNotSupportedError: spec(
    'ContentTypeNotSupportedError',
    -32005,
    400,
    'INVALID_ARGUMENT',
    'CONTENT_TYPE_NOT_SUPPORTED',
    'Incompatible content types',
  ),
  InvalidAgentResponseError: spec(
    'InvalidAgentResponseError',
    -32006,
    500,
    'INTERNAL',
    'INVALID_AGENT_RESPONSE',
    'Invalid agent response',
  ),
  ExtendedAgentCardNotConfiguredError: spec(
    'ExtendedAgentCardNotConfiguredError',
    -32007,
    400,
    'FAILED_PRECONDITION',
    'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
    'Extended agent card not configured',
  ),
  ExtensionSupportRequiredError: spec(
    'ExtensionSupportRequiredError',
    -32008,
    400,
    'FAILED_PRECONDITION',
    'EXTENSION_SUPPORT_REQUIRED',
    'Extension support required',
  ),
  VersionNotSupportedError: spec(
    'VersionNotSupportedError',
    -32009,
    400,
    'FAILED_PRECONDITION',
    'VERSION_NOT_SUPPORTED',
    'Version not supported',
  ),
  JSONParseError: spec(
    'JSONParseError',
    -32700,
    400,
    'INVALID_ARGUMENT',
    'PARSE_ERROR',
    'Invalid JSON payload',
  ),
  InvalidRequestError: spec(
    'InvalidRequestError',
    -32600,
    400,
    'INVALID_ARGUMENT',
    'INVALID_REQUEST',
    'Request payload validation error',
  ),
  MethodNotFoundError: spec(
    'MethodNotFoundError',
    -32601,
    404,
    'NOT_FOUND',
    'METHOD_NOT_FOUND',
    'Method not found',
  ),
  InvalidParamsError: spec(
    'InvalidParamsError',
    -32602,
    400,
    'INVALID_ARGUMENT',
    'INVALID_PARAMS',
    'Invalid parameters',
  ),
  InternalError: spec('InternalError', -32603, 500, 'INTERNAL', 'INTERNAL_ERROR', 'Internal error'),
  PayloadTooLargeError: spec(
    'PayloadTooLargeError',
    -32600,
    413,
    'RESOURCE_EXHAUSTED',
    'PAYLOAD_TOO_LARGE',
    'Request body too large',
    A2A_ONCE_ERROR_DOMAIN,
  ),
  UnauthenticatedError: spec(
    'UnauthenticatedError',
    -32600,
    401,
    'UNAUTHENTICATED',
    'UNAUTHENTICATED',
    'Authentication required',
    A2A_ONCE_ERROR_DOMAIN,
  ),
  PermissionDeniedError: spec(
    'PermissionDeniedError',
    -32600,
    403,
    'PERMISSION_DENIED',
    'PERMISSION_DENIED',
    'Permission denied',
    A2A_ONCE_ERROR_DOMAIN,
  ),
  IdempotencyKeyInvalidError: spec(
    'IdempotencyKeyInvalidError',
    -32602,
    400,
    'INVALID_ARGUMENT',
    'IDEMPOTENCY_KEY_INVALID',
    'Idempotency key is malformed',
    A2A_ONCE_ERROR_DOMAIN,
  ),
  IdempotencyKeyReusedError: spec(
    'IdempotencyKeyReusedError',
    -32602,
    400,
    'INVALID_ARGUMENT',
    'IDEMPOTENCY_KEY_REUSED',
    'Idempotency key was already used for a different message',
    A2A_ONCE_ERROR_DOMAIN,
  ),
  IdempotencyKeyExpiredError: spec(
    'IdempotencyKeyExpiredError',
    -32602,
    400,
    'INVALID_ARGUMENT',
    'IDEMPOTENCY_KEY_EXPIRED',
    'Idempotency key has expired; send with a new key',
    A2A_ONCE_ERROR_DOMAIN,
  ),
  LastEventIdInvalidError: spec(
    'LastEventIdInvalidError',
    -32602,
    400,
    'INVALID_ARGUMENT',
    'LAST_EVENT_ID_INVALID',
    'Last-Event-ID does not name an event of this task',
    A2A_ONCE_ERROR_DOMAIN,
  ),
  ServerBusyError: spec(
    'ServerBusyError',
    -32603,
    503,
    'UNAVAILABLE',
    'SERVER_BUSY',
    'The server is at capacity; retry later',
    A2A_ONCE_ERROR_DOMAIN,
  ),
  IdempotencyCapacityError: spec(
    'IdempotencyCapacityError',
    -32603,
    503,
    'UNAVAILABLE',
    'IDEMPOTENCY_CAPACITY',
    'Idempotency key index is full; retry later',
    A2A_ONCE_ERROR_DOMAIN,
  ),
  PushConfigLimitError: spec(
    'PushConfigLimitError',
    -32602,
    400,
    'FAILED_PRECONDITION',
    'PUSH_CONFIG_LIMIT',
    'The task already has as many push notification configs as this server allows; delete one first',
    A2A_ONCE_ERROR_DOMAIN,
  ),
} as const satisfies Record<string, A2AErrorSpec>;

/** Name of an error kind. */
export type A2AErrorName = keyof typeof ERROR_SPECS;

type ErrorClass = new (options?: A2AErrorOptions | string) => A2AError;

function errorClass(name: A2AErrorName): ErrorClass {
  const s = ERROR_SPECS[name];
  // A named class expression, so stack traces and `err.name` read the wire name.
  return {
    [name]: class extends A2AError {
      constructor(options?: A2AErrorOptions | string) {
        super(s, typeof options === 'string' ? { message: options } : options);
      }
    },
  }[name]!;
}

/** The task does not exist or is not visible to the caller. */
export const TaskNotFoundError = errorClass('TaskNotFoundError');
export type TaskNotFoundError = A2AError;
/** Cancel of a task in a state that cannot be canceled. */
export const TaskNotCancelableError = errorClass('TaskNotCancelableError');
export type TaskNotCancelableError = A2AError;
/** Push-config operation without `capabilities.pushNotifications`. */
export const PushNotificationNotSupportedError = errorClass('PushNotificationNotSupportedError');
export type PushNotificationNotSupportedError = A2AError;
/** An operation the agent or the task's state does not allow. */
export const UnsupportedOperationError = errorClass('UnsupportedOperationError');
export type UnsupportedOperationError = A2AError;
/** A part's media type or the request's content type is not supported. */
export const ContentTypeNotSupportedError = errorClass('ContentTypeNotSupportedError');
export type ContentTypeNotSupportedError = A2AError;
/** The agent's response does not conform (raised by clients). */
export const InvalidAgentResponseError = errorClass('InvalidAgentResponseError');
export type InvalidAgentResponseError = A2AError;
/** The extended card is declared but not configured. */
export const ExtendedAgentCardNotConfiguredError = errorClass('ExtendedAgentCardNotConfiguredError');
export type ExtendedAgentCardNotConfiguredError = A2AError;
/** A required extension was not requested in `A2A-Extensions`. */
export const ExtensionSupportRequiredError = errorClass('ExtensionSupportRequiredError');
export type ExtensionSupportRequiredError = A2AError;
/** The requested `A2A-Version` is not served. */
export const VersionNotSupportedError = errorClass('VersionNotSupportedError');
export type VersionNotSupportedError = A2AError;
/** JSON-RPC -32700. */
export const JSONParseError = errorClass('JSONParseError');
export type JSONParseError = A2AError;
/** JSON-RPC -32600. */
export const InvalidRequestError = errorClass('InvalidRequestError');
export type InvalidRequestError = A2AError;
/** JSON-RPC -32601. */
export const MethodNotFoundError = errorClass('MethodNotFoundError');
export type MethodNotFoundError = A2AError;
/** JSON-RPC -32602. */
export const InvalidParamsError = errorClass('InvalidParamsError');
export type InvalidParamsError = A2AError;
/** JSON-RPC -32603. */
export const InternalError = errorClass('InternalError');
export type InternalError = A2AError;
/** A request body over the server's limit (HTTP 413). */
export const PayloadTooLargeError = errorClass('PayloadTooLargeError');
export type PayloadTooLargeError = A2AError;
/** Missing or bad credentials (HTTP 401). */
export const UnauthenticatedError = errorClass('UnauthenticatedError');
export type UnauthenticatedError = A2AError;
/** An authenticated caller acting where it has no grant, e.g. a tenant it was not given (HTTP 403). */
export const PermissionDeniedError = errorClass('PermissionDeniedError');
export type PermissionDeniedError = A2AError;
/** A malformed idempotency key (docs/semantics.md §1). */
export const IdempotencyKeyInvalidError = errorClass('IdempotencyKeyInvalidError');
export type IdempotencyKeyInvalidError = A2AError;
/** A key held by a different message or digest (docs/semantics.md §2). */
export const IdempotencyKeyReusedError = errorClass('IdempotencyKeyReusedError');
export type IdempotencyKeyReusedError = A2AError;
/** A key past its TTL (docs/semantics.md §2). */
export const IdempotencyKeyExpiredError = errorClass('IdempotencyKeyExpiredError');
export type IdempotencyKeyExpiredError = A2AError;
/**
 * A stream resumed with a Last-Event-ID that is not a sequence, or names an event the task does not have yet
 * (docs/semantics.md §7, ADR 0125).
 */
export const LastEventIdInvalidError = errorClass('LastEventIdInvalidError');
export type LastEventIdInvalidError = A2AError;
/** The server is at capacity (HTTP 503 with Retry-After); nothing ran. */
export const ServerBusyError = errorClass('ServerBusyError');
export type ServerBusyError = A2AError;
/** The key index is full (HTTP 503 with Retry-After). */
export const IdempotencyCapacityError = errorClass('IdempotencyCapacityError');
export type IdempotencyCapacityError = A2AError;

/** A task already holds the most push configs the server allows (a cap per task; delete one first). */
export const PushConfigLimitError = errorClass('PushConfigLimitError');
export type PushConfigLimitError = A2AError;

const CLASSES: Record<A2AErrorName, ErrorClass> = {
  TaskNotFoundError,
  TaskNotCancelableError,
  PushNotificationNotSupportedError,
  UnsupportedOperationError,
  ContentTypeNotSupportedError,
  InvalidAgentResponseError,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  VersionNotSupportedError,
  JSONParseError,
  InvalidRequestError,
  MethodNotFoundError,
  InvalidParamsError,
  InternalError,
  PayloadTooLargeError,
  UnauthenticatedError,
  PermissionDeniedError,
  IdempotencyKeyInvalidError,
  IdempotencyKeyReusedError,
  IdempotencyKeyExpiredError,
  LastEventIdInvalidError,
  ServerBusyError,
  IdempotencyCapacityError,
  PushConfigLimitError,
};

/** The class of an error kind, by name. */
export function errorClassOf(name: A2AErrorName): ErrorClass {
  return CLASSES[name];
}

const BY_REASON = new Map<string, A2AErrorName>(
  (Object.keys(ERROR_SPECS) as A2AErrorName[]).map((n) => [ERROR_SPECS[n].reason, n]),
);
// Several kinds share a JSON-RPC code (-32602, -32600); the first declared is the generic one.
const BY_CODE = new Map<number, A2AErrorName>();
for (const n of Object.keys(ERROR_SPECS) as A2AErrorName[]) {
  if (!BY_CODE.has(ERROR_SPECS[n].code) || n === 'InvalidParamsError' || n === 'InvalidRequestError')
    BY_CODE.set(ERROR_SPECS[n].code, n);
}

/** Error kind for an ErrorInfo reason, if we know it. */
export function errorNameForReason(reason: string): A2AErrorName | undefined {
  return BY_REASON.get(reason);
}

/** Error kind for a JSON-RPC code, if we know it. */
export function errorNameForCode(code: number): A2AErrorName | undefined {
  return BY_CODE.get(code);
}

/** Wraps anything thrown into an A2AError; non-A2A errors become InternalError without leaking details. */
export function toA2AError(err: unknown): A2AError {
  if (err instanceof A2AError) return err;
  return new InternalError({ cause: err });
}
