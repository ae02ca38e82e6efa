/**
 * Span names and attribute names (ADR 0092). The `a2a.*`, `gen_ai.*` and `error.type` names are the
 * OpenTelemetry semantic conventions for A2A (status Development); the facts only a2a-once knows are under
 * `a2a_once.*`. No attribute ever holds an idempotency key: `a2a_once.key_hash` is its 12-hex-digit hash.
 */
export const ATTR = {
  method: 'a2a.method.name',
  taskId: 'a2a.task.id',
  taskState: 'a2a.task.state',
  messageId: 'a2a.message.id',
  tenant: 'a2a.tenant',
  protocolVersion: 'a2a.protocol.version',
  contextId: 'gen_ai.conversation.id',
  agentName: 'gen_ai.agent.name',
  errorType: 'error.type',
  admission: 'a2a_once.admission.outcome',
  fence: 'a2a_once.fence',
  agentRan: 'a2a_once.agent.ran',
  keyHash: 'a2a_once.key_hash',
  attempt: 'a2a_once.attempt',
  attempts: 'a2a_once.attempts',
  resumed: 'a2a_once.turn.resumed',
  stepName: 'a2a_once.step.name',
  stepOutcome: 'a2a_once.step.outcome',
  /** `at-least-once` or `at-most-once`, on a step attempt's span (ADR 0120). */
  stepSemantics: 'a2a_once.step.semantics',
  pushSeq: 'a2a_once.push.seq',
  pushStatus: 'a2a_once.push.status',
  pushOutcome: 'a2a_once.push.outcome',
  commitSize: 'a2a_once.store.commit.size',
  delegationName: 'a2a_once.delegation.name',
  childTaskId: 'a2a_once.delegation.child_task_id',
  delegationOutcome: 'a2a_once.delegation.outcome',
  httpStatus: 'http.response.status_code',
  /** `grpc` on a gRPC call's span (OpenTelemetry RPC conventions), with the service and method. */
  rpcSystem: 'rpc.system',
  rpcService: 'rpc.service',
  rpcMethod: 'rpc.method',
  /** The numeric gRPC status code a gRPC call answered. */
  rpcGrpcStatus: 'rpc.grpc.status_code',
  /** The A2A protocol binding of the call (`GRPC`); HTTP calls go without it. */
  protocolBinding: 'a2a.protocol.binding',
  url: 'url.full',
} as const;

/** Spans that are not A2A calls (those are named by their method). */
export const SPAN = {
  turn: 'a2a_once.agent.turn',
  attempt: 'a2a_once.attempt',
  step: 'a2a_once.step',
  /** One attempt of a step's `fn`, a child of its step span (ADR 0120). */
  stepAttempt: 'a2a_once.step.attempt',
  delegation: 'a2a_once.delegation',
  push: 'a2a_once.push.delivery',
  commit: 'a2a_once.store.commit',
  card: 'a2a_once.agent_card.fetch',
} as const;
