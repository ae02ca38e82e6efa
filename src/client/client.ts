/**
 * `A2AClient`: every A2A v1.0 operation over JSON-RPC or HTTP+JSON (or gRPC, with `a2a-once/client/grpc`'s
 * transport in `transports`), with sends that run once (docs/semantics.md §7).
 *
 * @example
 * const client = await A2AClient.fromCardUrl('https://agent.example.com');
 * const result = await client.send('summarise the incident'); // keyed and safely retried if the card allows
 */
import { checkAgentUrl } from './connection/agent-url.js';
import type { AgentCard } from '../protocol/agent-card.js';
import { BINDING_HTTP_JSON, BINDING_JSONRPC, PROTOCOL_VERSION } from '../protocol/constants.js';
import type { SendMessageResponse, StreamResponse, Task } from '../protocol/model.js';
import type {
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  TaskPushNotificationConfig,
} from '../protocol/requests.js';
import { cardUrlOf, fetchAgentCard, honoursKeys } from './connection/card-resolver.js';
import { tracedCardFetch } from './connection/card-span.js';
import { countOption } from './connection/call-options.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from './transport/bounded-body.js';
import { ClientError } from './connection/client-error.js';
import { cardCapture, type CardTrustOptions } from './connection/card-trust.js';
import { Connection } from './connection/connection.js';
import { selectInterfaces } from './connection/interface-selection.js';
import type { CallOptions, Endpoint } from './connection/call-options.js';
import type { A2AClientOptions } from './options.js';
import type { MessageInput, SendOptions } from './sends/send-options.js';
import {
  readAgentCard,
  readListTasks,
  readPushConfig,
  readPushConfigList,
  readTask,
} from './transport/parse-results.js';
import { recoverPending } from './sends/recovery.js';
import type { RecoverOptions, RecoveryResult } from './sends/recovery.js';
import { resolveRetry } from './retry/retry-loop.js';
import { sendMessage } from './sends/send-flow.js';
import { planSend, recordIntent } from './sends/send-plan.js';
import type { SendContext } from './sends/send-flow.js';
import { runStream } from './streams/stream-flow.js';
import { CONSOLE_LOGGER } from './sends/client-logger.js';
import { ClientCredentials } from './credentials/client-credentials.js';
import { placementOf } from './credentials/credential-placement.js';

/**
 * A bare endpoint: no card, so the binding (default JSONRPC) and tenant are stated by hand. Another binding
 * (`GRPC`) needs its transport in `transports`.
 */
export interface EndpointOptions extends A2AClientOptions {
  readonly binding?: 'JSONRPC' | 'HTTP+JSON' | (string & {});
  readonly tenant?: string;
  readonly protocolVersion?: string;
}

/**
 * What `fromCardUrl` and `connect` take besides the client's options: the card fetch's signal and limits
 * (`attemptTimeoutMs` bounds each attempt of the card fetch too, default 10,000 there), and how many same-origin
 * redirects the card fetch follows (`cardRedirects`, default 3, 0 for none; ADR 0070). Its retries are the
 * client's `retry` (settings or `false`), so the per-call `retry: false` is left out: intersected with the
 * client's, it would forbid retry settings altogether.
 */
export type CardCallOptions = Omit<CallOptions, 'retry'> & {
  /** Same-origin redirects the card fetch follows, at most. Default 3; 0 follows none. */
  readonly cardRedirects?: number;
};

/** A client of one agent. */
export class A2AClient {
  /** The agent's card, when the client was built from one. */
  readonly card: AgentCard | undefined;
  /** Whether keyed sends are resent after an ambiguous failure (card evidence or the caller's assertion). */
  readonly peerHonoursKeys: boolean;
  private readonly conn: Connection;
  private readonly ctx: SendContext;

  private constructor(
    endpoints: readonly Endpoint[],
    card: AgentCard | undefined,
    target: string,
    options: A2AClientOptions,
  ) {
    this.card = card;
    this.peerHonoursKeys = options.peerHonoursKeys ?? (card !== undefined && honoursKeys(card));
    this.conn = new Connection({
      endpoints,
      fetch: options.fetch ?? ((input, init) => fetch(input, init)),
      headers: options.headers ?? {},
      extensions: options.extensions ?? [],
      retry: resolveRetry(options.retry),
      timeoutMs: options.timeoutMs,
      attemptTimeoutMs: options.attemptTimeoutMs ?? 30_000,
      maxResponseBytes: countOption(
        'maxResponseBytes',
        options.maxResponseBytes,
        DEFAULT_MAX_RESPONSE_BYTES,
        1,
      ),
      credentials:
        options.credentials === undefined
          ? undefined
          : new ClientCredentials(options.credentials, placementOf(card)),
      telemetry: options.telemetry,
      transports: options.transports,
    });
    this.ctx = {
      conn: this.conn,
      peerHonoursKeys: this.peerHonoursKeys,
      keys: options.keys ?? 'auto',
      intents: options.intentStore,
      target,
      logger: options.logger ?? CONSOLE_LOGGER,
    };
  }

  /**
   * Fetches the card at `url` (a base URL gets `/.well-known/agent-card.json`) and builds a client for it. With
   * `trust`, the card must carry a signature by a trusted key (A2A §8.4, ADR 0073), else `CardNotTrustedError`.
   */
  static async fromCardUrl(
    url: string,
    options: A2AClientOptions & CardCallOptions & { readonly trust?: CardTrustOptions } = {},
  ): Promise<A2AClient> {
    const cardUrl = cardUrlOf(url);
    const capture = cardCapture(options.fetch, options.trust); // verifies the bytes parsed (ADR 0073)
    const card = await tracedCardFetch(options.telemetry, cardUrl, options.headers ?? {}, (headers) =>
      fetchAgentCard(cardUrl, {
        ...(capture.fetch ? { fetch: capture.fetch } : {}),
        ...(Object.keys(headers).length > 0 ? { headers } : {}),
        ...(options.credentials !== undefined ? { credentials: options.credentials } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.attemptTimeoutMs !== undefined ? { attemptTimeoutMs: options.attemptTimeoutMs } : {}),
        ...(options.retry !== undefined ? { retry: options.retry } : {}),
        ...(options.maxResponseBytes !== undefined ? { maxResponseBytes: options.maxResponseBytes } : {}),
        ...(options.cardRedirects !== undefined ? { cardRedirects: options.cardRedirects } : {}),
      }),
    );
    await capture.verify(cardUrl);
    return A2AClient.fromCard(card, { ...options, cardUrl });
  }

  /**
   * Builds a client from a card: interfaces chosen by preference, with the rest as fallback, each with its
   * tenant (A2A §8.3.2). `cardUrl` resolves relative interface URLs and names the agent for intents.
   */
  static fromCard(card: AgentCard, options: A2AClientOptions & { cardUrl?: string } = {}): A2AClient {
    const extra = (options.transports ?? []).map((t) => t.binding);
    const endpoints = selectInterfaces(card, options.preferredBindings, options.cardUrl, extra);
    const first = endpoints[0]!;
    return new A2AClient(endpoints, card, options.cardUrl ?? targetOf(first), options);
  }

  /**
   * The card at `url` if there is one, else `url` as a bare JSON-RPC endpoint (for tools that take whatever
   * URL a user typed). Only a missing card falls back; any other failure is thrown.
   */
  static async connect(url: string, options: EndpointOptions & CardCallOptions = {}): Promise<A2AClient> {
    try {
      return await A2AClient.fromCardUrl(url, options);
    } catch (err) {
      if (err instanceof ClientError && err.code === 'NO_AGENT_CARD')
        return A2AClient.fromEndpoint(url, options);
      throw err;
    }
  }

  /** Builds a client for a bare endpoint (no card: keys are resent only if `peerHonoursKeys` is asserted). */
  static fromEndpoint(url: string, options: EndpointOptions = {}): A2AClient {
    const binding = options.binding ?? BINDING_JSONRPC;
    // Another binding's transport checks its own URL (a gRPC URL is `host:port`).
    if (binding === BINDING_JSONRPC || binding === BINDING_HTTP_JSON) checkAgentUrl(url);
    const endpoint: Endpoint = {
      url,
      protocolBinding: binding,
      protocolVersion: options.protocolVersion ?? PROTOCOL_VERSION,
      ...(options.tenant !== undefined ? { tenant: options.tenant } : {}),
    };
    return new A2AClient([endpoint], undefined, targetOf(endpoint), options);
  }

  /** The interface in use: binding, URL and tenant. */
  get endpoint(): { readonly binding: string; readonly url: string; readonly tenant: string | undefined } {
    const t = this.conn.transport;
    return { binding: t.binding, url: t.url, tenant: t.tenant };
  }

  /**
   * SendMessage, once: keyed when the peer honours keys (unless `key: false`), retried only when safe, ending
   * in `OutcomeUnknownError` when it may have run and cannot be safely resent.
   */
  send(message: MessageInput, options: SendOptions = {}): Promise<SendMessageResponse> {
    return sendMessage(this.ctx, message, options);
  }

  /**
   * SendStreamingMessage: yields each update once, re-attaching after a cut (keyed resend or SubscribeToTask)
   * until the task settles (terminal or INPUT_REQUIRED) or a message arrives.
   */
  async *sendStream(message: MessageInput, options: SendOptions = {}): AsyncGenerator<StreamResponse> {
    const plan = planSend(this.ctx, message, options, this.conn.transport.tenant);
    await recordIntent(this.ctx, plan, true);
    yield* runStream(this.ctx, { send: plan }, options);
  }

  /**
   * SubscribeToTask: the task snapshot, then its updates, re-subscribing after a cut. With `afterEventId` (the
   * `eventSequenceOf` an event this caller already handled, kept across its own restarts), no snapshot: exactly
   * the task's events after that one, from a peer that numbers its events (a2a-once, ADR 0125); a peer that does
   * not answers with its snapshot as usual.
   * @throws ClientError `INVALID_ARGUMENT` when `afterEventId` is not a non-negative integer
   */
  subscribe(
    taskId: string,
    options: CallOptions & { afterEventId?: number } = {},
  ): AsyncGenerator<StreamResponse> {
    const after = options.afterEventId;
    if (after !== undefined && (!Number.isSafeInteger(after) || after < 0))
      throw new ClientError(
        'INVALID_ARGUMENT',
        'afterEventId must be a non-negative integer (an event sequence)',
      );
    return runStream(this.ctx, { subscribe: taskId, afterEventId: after }, options);
  }

  /** GetTask. */
  async getTask(id: string, options: CallOptions & { historyLength?: number } = {}): Promise<Task> {
    const params =
      options.historyLength === undefined ? { id } : { id, historyLength: options.historyLength };
    return readTask(await this.conn.unary('GetTask', params, 'read', options));
  }

  /** ListTasks (one page; follow `nextPageToken` for more). */
  async listTasks(
    request: Omit<ListTasksRequest, 'tenant'> = {},
    options: CallOptions = {},
  ): Promise<ListTasksResponse> {
    return readListTasks(await this.conn.unary('ListTasks', { ...request }, 'read', options));
  }

  /** CancelTask (idempotent, A2A §3.3.1, so retried like a read). */
  async cancelTask(
    id: string,
    options: CallOptions & { metadata?: Record<string, unknown> } = {},
  ): Promise<Task> {
    const params = options.metadata === undefined ? { id } : { id, metadata: options.metadata };
    return readTask(await this.conn.unary('CancelTask', params, 'read', options));
  }

  /** CreateTaskPushNotificationConfig (not idempotent without an id: retried only when certainly not run). */
  async createPushConfig(
    config: Omit<TaskPushNotificationConfig, 'tenant'> & { taskId: string },
    options: CallOptions = {},
  ): Promise<TaskPushNotificationConfig> {
    // With an id, creating again replaces the same config (A2A v1.0), so a repeat is harmless.
    const safety = config.id ? 'read' : 'unsafe';
    return readPushConfig(
      await this.conn.unary('CreateTaskPushNotificationConfig', { ...config }, safety, options),
    );
  }

  /** GetTaskPushNotificationConfig. */
  async getPushConfig(
    taskId: string,
    id: string,
    options: CallOptions = {},
  ): Promise<TaskPushNotificationConfig> {
    return readPushConfig(
      await this.conn.unary('GetTaskPushNotificationConfig', { taskId, id }, 'read', options),
    );
  }

  /** ListTaskPushNotificationConfigs. */
  async listPushConfigs(
    taskId: string,
    request: Omit<ListTaskPushNotificationConfigsRequest, 'tenant' | 'taskId'> = {},
    options: CallOptions = {},
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    const raw = await this.conn.unary(
      'ListTaskPushNotificationConfigs',
      { taskId, ...request },
      'read',
      options,
    );
    return readPushConfigList(raw);
  }

  /** DeleteTaskPushNotificationConfig (idempotent, A2A §3.1.10). Accepts `{}`, `null` and 204. */
  async deletePushConfig(taskId: string, id: string, options: CallOptions = {}): Promise<void> {
    await this.conn.unary('DeleteTaskPushNotificationConfig', { taskId, id }, 'read', options);
  }

  /** GetExtendedAgentCard. */
  async getExtendedCard(options: CallOptions = {}): Promise<AgentCard> {
    return readAgentCard(await this.conn.unary('GetExtendedAgentCard', {}, 'read', options));
  }

  /** Resends the keyed sends a crash left pending in the intent store, with their keys. */
  recoverPending(options: RecoverOptions = {}): Promise<RecoveryResult[]> {
    return recoverPending(this.ctx, options);
  }
}

function targetOf(e: Endpoint): string {
  return e.tenant ? `${e.url}#tenant=${e.tenant}` : e.url;
}
