/**
 * `a2a-once/server`: the request handler, the agent API, the HTTP surface, and observability seams.
 */
export { A2ARequestHandler } from './a2a-request-handler.js';
export { createA2AServer, type A2AServer } from './create-server.js';
export type { A2AServerOptions, ResolvedServerOptions } from './options.js';
export type { RequestHandler } from './request-handler.js';
export { localCallContext, type CallContext } from './call-context.js';
export {
  StaleWriterError,
  type AgentContext,
  type AgentExecutor,
  type ArtifactChunkOptions,
  type ArtifactInit,
  type StatusMessageInit,
} from './agent-executor.js';
export { advertiseIdempotency, buildAgentCard, defaultInterfaces, type AgentCardInit } from './card.js';
export { createFetchHandler, type FetchHandler } from './http/fetch-handler.js';
export type { HttpOptions } from './http/http-options.js';
export { jsonLineLogger, silentLogger, type LogFields, type ServerLogger } from './observability/logger.js';
export {
  ADMISSION_COUNTER,
  InMemoryMetrics,
  noopMetrics,
  type AdmissionOutcome,
  type ServerMetrics,
} from './observability/metrics.js';
