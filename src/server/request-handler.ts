/**
 * The transport-agnostic server surface: the eleven A2A v1.0 operations (A2A v1.0). Bindings (JSON-RPC, REST)
 * parse and validate params, call these, and render results or `A2AError`s. Every method throws only A2AError.
 */
import type { AgentCard } from '../protocol/agent-card.js';
import type { SendMessageResponse, StreamResponse, Task } from '../protocol/model.js';
import type {
  CancelTaskRequest,
  GetExtendedAgentCardRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
  TaskPushNotificationConfigRef,
} from '../protocol/requests.js';
import type { CallContext } from './call-context.js';
import type { CardSigner } from './card-signer.js';
import type { ServerLogger } from './observability/logger.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import type { HistogramSink } from './observability/metrics.js';

/** The eleven operations. */
export interface RequestHandler {
  /** The public agent card (what `/.well-known/agent-card.json` serves). */
  readonly agentCard: AgentCard;
  /** Signs the cards the bindings serve, when the host configured card signing (ADR 0074). */
  readonly cardSigner?: CardSigner | undefined;
  /** The gRPC interface the cards list after the HTTP ones, when the host serves gRPC (docs/guides/grpc.md). */
  readonly grpcInterface?: { readonly url: string; readonly tenant?: string } | undefined;
  /** Where the bindings log unexpected errors they answer (ADR 0029); stderr JSON lines when absent. */
  readonly logger?: ServerLogger;
  /** Where the bindings start a SERVER span per call (ADR 0091); none: no span. */
  readonly telemetry?: Telemetry | undefined;
  /** Where the bindings record each call's duration (ADR 0094); none: no call is timed. */
  readonly histograms?: HistogramSink | undefined;

  sendMessage(params: SendMessageRequest, ctx: CallContext): Promise<SendMessageResponse>;
  /**
   * Resolves once the stream is admitted (so refusals reject the promise and bindings can answer with a plain
   * error instead of SSE); the iterable then yields the stream's events and ends where the A2A v1.0 says.
   */
  sendStreamingMessage(params: SendMessageRequest, ctx: CallContext): Promise<AsyncIterable<StreamResponse>>;
  getTask(params: GetTaskRequest, ctx: CallContext): Promise<Task>;
  listTasks(params: ListTasksRequest, ctx: CallContext): Promise<ListTasksResponse>;
  cancelTask(params: CancelTaskRequest, ctx: CallContext): Promise<Task>;
  /**
   * The task snapshot, then its events (A2A v1.0); with `ctx.resumeAfter` (a `Last-Event-ID`), no snapshot but
   * exactly the events after that sequence, then the live ones (ADR 0125). Sets `ctx.notes.streamSeq`, the
   * stream's base sequence, from which the bindings number each event (ADR 0124); so does `sendStreamingMessage`.
   */
  subscribeToTask(params: SubscribeToTaskRequest, ctx: CallContext): Promise<AsyncIterable<StreamResponse>>;
  createTaskPushNotificationConfig(
    params: TaskPushNotificationConfig,
    ctx: CallContext,
  ): Promise<TaskPushNotificationConfig>;
  getTaskPushNotificationConfig(
    params: TaskPushNotificationConfigRef,
    ctx: CallContext,
  ): Promise<TaskPushNotificationConfig>;
  listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
    ctx: CallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse>;
  deleteTaskPushNotificationConfig(params: TaskPushNotificationConfigRef, ctx: CallContext): Promise<void>;
  getExtendedAgentCard(params: GetExtendedAgentCardRequest, ctx: CallContext): Promise<AgentCard>;
}
