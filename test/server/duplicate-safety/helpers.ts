import type {
  StepAttemptInput,
  StepAttemptRecord,
  StepAttemptResult,
} from '../../../src/store/step-attempts.js';
import { afterEach } from 'vitest';
/**
 * Shared helpers of the duplicate-safety suite: wire builders for JSON-RPC and REST sends (unary and
 * streaming), error extraction into one shape for both bindings, an SSE reader, a scripted agent that counts its
 * executions, a delegating TaskStore for fault injection, and a server factory over the in-memory store.
 */
import { randomUUID } from 'node:crypto';
import { setKey } from '../../../src/idempotency/index.js';
import type { Message, StreamResponse, Task } from '../../../src/protocol/model.js';
import type { TaskPushNotificationConfig } from '../../../src/protocol/requests.js';
import type { TaskState } from '../../../src/protocol/task-state.js';
import type { AgentContext, AgentExecutor } from '../../../src/server/agent-executor.js';
import type { AgentCardInit } from '../../../src/server/card.js';
import { createA2AServer, type A2AServer } from '../../../src/server/create-server.js';
import type { HttpOptions } from '../../../src/server/http/http-options.js';
import type { LogFields, ServerLogger } from '../../../src/server/observability/logger.js';
import { InMemoryMetrics } from '../../../src/server/observability/metrics.js';
import type { A2AServerOptions } from '../../../src/server/options.js';
import { ManualClock } from '../../../src/store/clock.js';
import { MemoryTaskStore, type MemoryTaskStoreOptions } from '../../../src/store/memory/memory-task-store.js';
import type {
  KeyRecord,
  LapsedTask,
  StepRecord,
  StoredEvent,
  StoredTask,
} from '../../../src/store/records.js';
import type { PushDelivery, PushDeliveryState, PushOutcome } from '../../../src/store/push-delivery.js';
import type { PurgeReport, RetentionPolicy } from '../../../src/store/retention.js';
import type { Scope } from '../../../src/store/scope.js';
import type {
  ClaimKeyInput,
  ClaimKeyResult,
  CommitResult,
  CreateTaskInput,
  CreateTaskResult,
  StepInput,
  StepResult,
  StoreCapabilities,
  TaskPage,
  TaskQuery,
  TaskStore,
  TaskWrite,
} from '../../../src/store/task-store.js';

// ---------------------------------------------------------------------------------------------------------------
// Bindings and endpoints

/** The two HTTP bindings every row is tested over. */
export type Binding = 'jsonrpc' | 'rest';
export const BINDINGS: readonly Binding[] = ['jsonrpc', 'rest'];

/** Where requests go: the in-process fetch handler or a real socket. */
export interface Endpoint {
  readonly base: string;
  readonly fetch: (req: Request) => Promise<Response>;
}

/** The server's fetch handler, called in process (no socket). */
export function inProcess(server: A2AServer): Endpoint {
  return { base: 'http://a2a.test', fetch: (req) => server.fetch(req) };
}

/** A listening server, reached over a real socket. */
export function overSocket(url: string): Endpoint {
  return { base: url.replace(/\/+$/, ''), fetch: (req) => fetch(req) };
}

/** Options of one send. */
export interface SendOpts {
  readonly returnImmediately?: boolean;
  readonly historyLength?: number;
  /** The A2A tenant: REST path prefix, JSON-RPC `params.tenant`. */
  readonly tenant?: string;
  readonly headers?: Record<string, string>;
  readonly pushConfig?: TaskPushNotificationConfig;
}

let rpcId = 0;

/** A SendMessage / SendStreamingMessage HTTP request of either binding. */
export function sendRequest(
  ep: Endpoint,
  binding: Binding,
  streaming: boolean,
  message: unknown,
  opts: SendOpts = {},
): Request {
  const configuration: Record<string, unknown> = {};
  if (opts.returnImmediately !== undefined) configuration.returnImmediately = opts.returnImmediately;
  if (opts.historyLength !== undefined) configuration.historyLength = opts.historyLength;
  if (opts.pushConfig !== undefined) configuration.taskPushNotificationConfig = opts.pushConfig;
  const params: Record<string, unknown> = { message };
  if (Object.keys(configuration).length > 0) params.configuration = configuration;
  const headers = { 'Content-Type': 'application/json', ...opts.headers };
  if (binding === 'jsonrpc') {
    if (opts.tenant !== undefined) params.tenant = opts.tenant;
    const body = {
      jsonrpc: '2.0',
      id: ++rpcId,
      method: streaming ? 'SendStreamingMessage' : 'SendMessage',
      params,
    };
    return new Request(`${ep.base}/`, { method: 'POST', headers, body: JSON.stringify(body) });
  }
  const prefix = opts.tenant !== undefined ? `/${encodeURIComponent(opts.tenant)}` : '';
  return new Request(`${ep.base}${prefix}/message:${streaming ? 'stream' : 'send'}`, {
    method: 'POST',
    headers,
    body: JSON.stringify(params),
  });
}

/** A GetTask request of either binding. */
export function getTaskRequest(
  ep: Endpoint,
  binding: Binding,
  id: string,
  tenant?: string,
  headers = {},
): Request {
  if (binding === 'jsonrpc') {
    const params: Record<string, unknown> = { id };
    if (tenant !== undefined) params.tenant = tenant;
    return new Request(`${ep.base}/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method: 'GetTask', params }),
    });
  }
  const prefix = tenant !== undefined ? `/${encodeURIComponent(tenant)}` : '';
  return new Request(`${ep.base}${prefix}/tasks/${encodeURIComponent(id)}`, { method: 'GET', headers });
}

// ---------------------------------------------------------------------------------------------------------------
// Errors

/** A wire error, read the same way from both bindings. */
export interface WireError {
  readonly binding: Binding;
  /** HTTP status of the response. */
  readonly httpStatus: number;
  /** JSON-RPC error code (JSON-RPC only). */
  readonly code: number | undefined;
  /** `google.rpc.Status` status name (REST only). */
  readonly status: string | undefined;
  /** ErrorInfo reason. */
  readonly reason: string | undefined;
  readonly domain: string | undefined;
  /** ErrorInfo metadata. */
  readonly metadata: Record<string, string> | undefined;
  readonly message: string;
  /** The `Retry-After` header, if any. */
  readonly retryAfter: string | null;
}

interface ErrorInfoLike {
  '@type'?: unknown;
  reason?: unknown;
  domain?: unknown;
  metadata?: unknown;
}

function errorInfoOf(details: unknown): ErrorInfoLike | undefined {
  if (!Array.isArray(details)) return undefined;
  return (details as unknown[]).find(
    (d): d is ErrorInfoLike =>
      typeof d === 'object' &&
      d !== null &&
      (d as ErrorInfoLike)['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo',
  );
}

/** Reads an error body of either binding (`body` is the parsed JSON; for JSON-RPC the whole envelope). */
export function extractError(
  binding: Binding,
  httpStatus: number,
  headers: Headers,
  body: unknown,
): WireError {
  const err = (
    typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined
  ) as Record<string, unknown> | undefined;
  if (!err) throw new Error(`not an error body (HTTP ${httpStatus}): ${JSON.stringify(body)}`);
  const info = errorInfoOf(binding === 'jsonrpc' ? err.data : err.details);
  return {
    binding,
    httpStatus,
    code: binding === 'jsonrpc' && typeof err.code === 'number' ? err.code : undefined,
    status: binding === 'rest' && typeof err.status === 'string' ? err.status : undefined,
    reason: typeof info?.reason === 'string' ? info.reason : undefined,
    domain: typeof info?.domain === 'string' ? info.domain : undefined,
    metadata:
      typeof info?.metadata === 'object' && info.metadata !== null
        ? (info.metadata as Record<string, string>)
        : undefined,
    message: typeof err.message === 'string' ? err.message : '',
    retryAfter: headers.get('retry-after'),
  };
}

/** What docs/semantics.md says a refusal looks like on the wire. */
export interface ExpectedRefusal {
  /** JSON-RPC code. */
  readonly code: number;
  /** REST HTTP status. */
  readonly http: number;
  readonly reason: string;
}

/** Whether `e` is the refusal `want` on its binding. */
export function refusalShape(e: WireError): { code?: number; http?: number; reason?: string } {
  return e.binding === 'jsonrpc'
    ? { code: e.code, reason: e.reason }
    : { http: e.httpStatus, reason: e.reason };
}

/** `want` projected onto a binding, to compare with `refusalShape`. */
export function expectedShape(
  binding: Binding,
  want: ExpectedRefusal,
): { code?: number; http?: number; reason?: string } {
  return binding === 'jsonrpc'
    ? { code: want.code, reason: want.reason }
    : { http: want.http, reason: want.reason };
}

export const REFUSALS = {
  keyInvalid: { code: -32602, http: 400, reason: 'IDEMPOTENCY_KEY_INVALID' },
  keyReused: { code: -32602, http: 400, reason: 'IDEMPOTENCY_KEY_REUSED' },
  keyExpired: { code: -32602, http: 400, reason: 'IDEMPOTENCY_KEY_EXPIRED' },
  capacity: { code: -32603, http: 503, reason: 'IDEMPOTENCY_CAPACITY' },
  taskNotFound: { code: -32001, http: 404, reason: 'TASK_NOT_FOUND' },
  unsupported: { code: -32004, http: 400, reason: 'UNSUPPORTED_OPERATION' },
  invalidParams: { code: -32602, http: 400, reason: 'INVALID_PARAMS' },
} as const satisfies Record<string, ExpectedRefusal>;

// ---------------------------------------------------------------------------------------------------------------
// Unary sends

/** The answer to a send. */
export type Answer =
  | { readonly kind: 'task'; readonly task: Task; readonly httpStatus: number; readonly headers: Headers }
  | {
      readonly kind: 'message';
      readonly message: Message;
      readonly httpStatus: number;
      readonly headers: Headers;
    }
  | {
      readonly kind: 'error';
      readonly error: WireError;
      readonly httpStatus: number;
      readonly headers: Headers;
    };

/** Reads a unary response of either binding. */
export async function readAnswer(binding: Binding, res: Response): Promise<Answer> {
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    throw new Error(`HTTP ${res.status}: not JSON: ${text.slice(0, 200)}`);
  }
  const h = res.headers;
  const isError =
    binding === 'jsonrpc'
      ? typeof body === 'object' && body !== null && 'error' in body
      : res.status >= 400 || (typeof body === 'object' && body !== null && 'error' in body);
  if (isError)
    return {
      kind: 'error',
      error: extractError(binding, res.status, h, body),
      httpStatus: res.status,
      headers: h,
    };
  const result = (binding === 'jsonrpc' ? (body as { result?: unknown }).result : body) as
    { task?: Task; message?: Message } | undefined;
  if (result?.task) return { kind: 'task', task: result.task, httpStatus: res.status, headers: h };
  if (result?.message)
    return { kind: 'message', message: result.message, httpStatus: res.status, headers: h };
  throw new Error(`unexpected send result: ${text.slice(0, 300)}`);
}

/** Sends a message (SendMessage) and reads the answer. */
export async function send(
  ep: Endpoint,
  binding: Binding,
  message: unknown,
  opts: SendOpts = {},
): Promise<Answer> {
  return readAnswer(binding, await ep.fetch(sendRequest(ep, binding, false, message, opts)));
}

/** GetTask over a binding: the task or the error. */
export async function getTask(
  ep: Endpoint,
  binding: Binding,
  id: string,
  tenant?: string,
  headers = {},
): Promise<Answer> {
  const res = await ep.fetch(getTaskRequest(ep, binding, id, tenant, headers));
  const text = await res.text();
  const body = JSON.parse(text) as unknown;
  if (res.status >= 400 || (typeof body === 'object' && body !== null && 'error' in body)) {
    return {
      kind: 'error',
      error: extractError(binding, res.status, res.headers, body),
      httpStatus: res.status,
      headers: res.headers,
    };
  }
  const task = (binding === 'jsonrpc' ? (body as { result: Task }).result : body) as Task;
  return { kind: 'task', task, httpStatus: res.status, headers: res.headers };
}

/** The task of an answer (throws with the answer otherwise, so the test fails with something readable). */
export function taskOf(a: Answer): Task {
  if (a.kind !== 'task')
    throw new Error(`expected a task, got ${JSON.stringify(a.kind === 'error' ? a.error : a.message)}`);
  return a.task;
}

/** The error of an answer (throws with the answer otherwise). */
export function errorOf(a: Answer | StreamOpen): WireError {
  if (a.kind !== 'error') {
    const what = a.kind === 'task' ? a.task : a.kind === 'message' ? a.message : 'an open stream';
    throw new Error(`expected an error, got ${a.kind}: ${JSON.stringify(what).slice(0, 300)}`);
  }
  return a.error;
}

// ---------------------------------------------------------------------------------------------------------------
// Streams

/** One frame of an SSE stream: an event or an in-stream error. */
export type StreamFrame = { readonly event: StreamResponse } | { readonly error: WireError };

/** A streaming send: either refused up front, or an open stream. */
export type StreamOpen =
  | { readonly kind: 'error'; readonly error: WireError; readonly httpStatus: number }
  | { readonly kind: 'stream'; readonly stream: SseStream; readonly headers: Headers };

/** Reads an SSE body incrementally. */
export class SseStream {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  readonly #binding: Binding;
  readonly #headers: Headers;
  #buffer = '';
  #done = false;

  constructor(binding: Binding, res: Response) {
    if (!res.body) throw new Error('stream response without a body');
    this.#reader = res.body.getReader();
    this.#binding = binding;
    this.#headers = res.headers;
  }

  /** The next frame, or undefined when the stream ended. Fails after `timeoutMs`. */
  async next(timeoutMs = 10_000): Promise<StreamFrame | undefined> {
    return withTimeout(this.#next(), timeoutMs, 'next SSE frame');
  }

  async #next(): Promise<StreamFrame | undefined> {
    for (;;) {
      const sep = /\r?\n\r?\n/.exec(this.#buffer);
      if (sep) {
        const block = this.#buffer.slice(0, sep.index);
        this.#buffer = this.#buffer.slice(sep.index + sep[0].length);
        const frame = this.#parse(block);
        if (frame) return frame;
        continue;
      }
      if (this.#done) return undefined;
      const { done, value } = await this.#reader.read();
      if (done) {
        this.#done = true;
        this.#buffer += '\n\n';
        if (this.#buffer.trim() === '') return undefined;
      } else this.#buffer += this.#decoder.decode(value, { stream: true });
    }
  }

  #parse(block: string): StreamFrame | undefined {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(':') || line === '') continue;
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length === 0) return undefined;
    const json = JSON.parse(data.join('\n')) as Record<string, unknown>;
    if (this.#binding === 'jsonrpc') {
      if ('error' in json) return { error: extractError('jsonrpc', 200, this.#headers, json) };
      return { event: json.result as StreamResponse };
    }
    if (event === 'error' || 'error' in json)
      return { error: extractError('rest', 200, this.#headers, json) };
    return { event: json as unknown as StreamResponse };
  }

  /** Every remaining frame until the stream ends (fails after `timeoutMs`). */
  async rest(timeoutMs = 15_000): Promise<StreamFrame[]> {
    const out: StreamFrame[] = [];
    const end = Date.now() + timeoutMs;
    for (;;) {
      const f = await this.next(Math.max(1, end - Date.now()));
      if (!f) return out;
      out.push(f);
    }
  }

  /** Stops reading (the client goes away). */
  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => undefined);
  }
}

/** Opens a streaming send. */
export async function openStream(
  ep: Endpoint,
  binding: Binding,
  message: unknown,
  opts: SendOpts = {},
): Promise<StreamOpen> {
  const res = await ep.fetch(sendRequest(ep, binding, true, message, opts));
  const ct = res.headers.get('content-type') ?? '';
  if (!ct.includes('text/event-stream')) {
    const body = JSON.parse(await res.text()) as unknown;
    return {
      kind: 'error',
      error: extractError(binding, res.status, res.headers, body),
      httpStatus: res.status,
    };
  }
  return { kind: 'stream', stream: new SseStream(binding, res), headers: res.headers };
}

/** Opens a streaming send and reads it to its end. */
export async function streamAll(
  ep: Endpoint,
  binding: Binding,
  message: unknown,
  opts: SendOpts = {},
): Promise<
  { kind: 'error'; error: WireError } | { kind: 'events'; frames: StreamFrame[]; events: StreamResponse[] }
> {
  const open = await openStream(ep, binding, message, opts);
  if (open.kind === 'error') return open;
  const frames = await open.stream.rest();
  return { kind: 'events', frames, events: frames.flatMap((f) => ('event' in f ? [f.event] : [])) };
}

/** A compact label per event: `task:<STATE>`, `message`, `status:<STATE>`, `artifact`. */
export function eventLabels(events: readonly StreamResponse[]): string[] {
  return events.map((ev) => {
    if ('task' in ev) return `task:${ev.task.status.state}`;
    if ('message' in ev) return 'message';
    if ('statusUpdate' in ev) return `status:${ev.statusUpdate.status.state}`;
    return 'artifact';
  });
}

/** The task id an event is about. */
export function taskIdOf(ev: StreamResponse): string | undefined {
  if ('task' in ev) return ev.task.id;
  if ('statusUpdate' in ev) return ev.statusUpdate.taskId;
  if ('artifactUpdate' in ev) return ev.artifactUpdate.taskId;
  return ev.message.taskId;
}

// ---------------------------------------------------------------------------------------------------------------
// Messages and keys

let counter = 0;

/** A unique id with a readable prefix. */
export function uid(prefix: string): string {
  return `${prefix}-${++counter}-${randomUUID().slice(0, 8)}`;
}

/** A fresh caller-chosen key (no mint time: its age is unknown to the server). */
export function freshKey(): string {
  return `dup-key-${randomUUID()}`;
}

/** A user message with one text part. */
export function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return { messageId: uid('msg'), role: 'ROLE_USER', parts: [{ text }], ...extra };
}

/** A user message carrying `key` (metadata entry and extension URI). */
export function keyedMessage(text: string, key: string = freshKey(), extra: Partial<Message> = {}): Message {
  return setKey(userMessage(text, extra), key);
}

// ---------------------------------------------------------------------------------------------------------------
// The scripted agent

/** One recorded execution of the scripted agent. */
export interface Execution {
  readonly taskId: string;
  readonly messageId: string;
  readonly text: string;
  readonly isContinuation: boolean;
  readonly tenant: string;
  readonly principal: string | undefined;
}

/**
 * An agent whose behaviour is chosen by the first word of the user text:
 * `input` INPUT_REQUIRED, `auth` AUTH_REQUIRED, `fail` FAILED, `reject` REJECTED, `throw` throws (FAILED),
 * `reply` a direct message, `hold` WORKING until `release()`, `stall` no output until `release()`,
 * anything else WORKING, an `echo: <text>` artifact, COMPLETED. Every execution is recorded first.
 */
export class ScriptedAgent implements AgentExecutor {
  readonly executions: Execution[] = [];
  #release!: () => void;
  #gate: Promise<void>;

  constructor() {
    this.#gate = new Promise<void>((r) => (this.#release = r));
  }

  /** Lets every `hold` / `stall` turn go on. */
  release(): void {
    this.#release();
  }

  /** Executions of one task. */
  executionsOf(taskId: string): Execution[] {
    return this.executions.filter((e) => e.taskId === taskId);
  }

  async #wait(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return false;
    return new Promise<boolean>((resolve) => {
      const onAbort = () => resolve(false);
      signal.addEventListener('abort', onAbort, { once: true });
      void this.#gate.then(() => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      });
    });
  }

  async execute(ctx: AgentContext): Promise<void> {
    this.executions.push({
      taskId: ctx.taskId,
      messageId: ctx.message.messageId,
      text: ctx.userText,
      isContinuation: ctx.isContinuation,
      tenant: ctx.tenant,
      principal: ctx.principal,
    });
    const word = ctx.userText.split(/\s+/, 1)[0] ?? '';
    switch (word) {
      case 'input':
        return ctx.requireInput('what next?');
      case 'auth':
        return ctx.requireAuth('please authenticate');
      case 'fail':
        return ctx.fail('failed on purpose');
      case 'reject':
        return ctx.reject('rejected on purpose');
      case 'throw':
        throw new Error('agent crashed on purpose');
      case 'reply':
        return ctx.reply(`reply: ${ctx.userText}`);
      case 'hold':
        await ctx.working('holding');
        if (!(await this.#wait(ctx.signal))) return;
        break;
      case 'stall':
        if (!(await this.#wait(ctx.signal))) return;
        break;
      default:
        await ctx.working();
    }
    await ctx.artifact({ name: 'echo', parts: [{ text: `echo: ${ctx.userText}` }] });
    await ctx.complete();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Stores

/**
 * A TaskStore that delegates to a MemoryTaskStore; subclasses override what they need (capabilities, delays,
 * failures). It is a real store class, usable anywhere a TaskStore is.
 */
export class DelegatingStore implements TaskStore {
  readonly inner: MemoryTaskStore;

  constructor(inner: MemoryTaskStore = new MemoryTaskStore()) {
    this.inner = inner;
  }

  get capabilities(): StoreCapabilities {
    return this.inner.capabilities;
  }
  get supportsIdempotency(): boolean {
    return this.inner.supportsIdempotency;
  }
  createTask(scope: Scope, input: CreateTaskInput): Promise<CreateTaskResult> {
    return this.inner.createTask(scope, input);
  }
  getTask(scope: Scope, taskId: string): Promise<StoredTask | undefined> {
    return this.inner.getTask(scope, taskId);
  }
  listTasks(scope: Scope, query: TaskQuery): Promise<TaskPage> {
    return this.inner.listTasks(scope, query);
  }
  commit(scope: Scope, taskId: string, write: TaskWrite): Promise<CommitResult> {
    return this.inner.commit(scope, taskId, write);
  }
  readEvents(scope: Scope, taskId: string, afterSeq: number): Promise<StoredEvent[]> {
    return this.inner.readEvents(scope, taskId, afterSeq);
  }
  watch(scope: Scope, taskId: string, afterSeq: number, signal: AbortSignal): AsyncIterable<StoredEvent> {
    return this.inner.watch(scope, taskId, afterSeq, signal);
  }
  getKey(scope: Scope, key: string): Promise<KeyRecord | undefined> {
    return this.inner.getKey(scope, key);
  }
  releaseClaim(scope: Scope, taskId: string, key: string | undefined): Promise<boolean> {
    return this.inner.releaseClaim(scope, taskId, key);
  }
  claimKey(scope: Scope, input: ClaimKeyInput): Promise<ClaimKeyResult> {
    return this.inner.claimKey(scope, input);
  }
  releaseKey(scope: Scope, key: string, taskId: string, messageId: string): Promise<boolean> {
    return this.inner.releaseKey(scope, key, taskId, messageId);
  }
  putPushConfig(scope: Scope, taskId: string, config: TaskPushNotificationConfig): Promise<void> {
    return this.inner.putPushConfig(scope, taskId, config);
  }
  getPushConfig(scope: Scope, taskId: string, id: string): Promise<TaskPushNotificationConfig | undefined> {
    return this.inner.getPushConfig(scope, taskId, id);
  }
  listPushConfigs(scope: Scope, taskId: string): Promise<TaskPushNotificationConfig[]> {
    return this.inner.listPushConfigs(scope, taskId);
  }
  deletePushConfig(scope: Scope, taskId: string, id: string): Promise<boolean> {
    return this.inner.deletePushConfig(scope, taskId, id);
  }
  claimPushDeliveries(holder: string, claimMs: number, limit: number): Promise<PushDelivery[]> {
    return this.inner.claimPushDeliveries(holder, claimMs, limit);
  }
  recordPushDelivery(
    scope: Scope,
    taskId: string,
    configId: string,
    holder: string,
    outcome: PushOutcome,
  ): Promise<boolean> {
    return this.inner.recordPushDelivery(scope, taskId, configId, holder, outcome);
  }
  getPushDelivery(scope: Scope, taskId: string, configId: string): Promise<PushDeliveryState | undefined> {
    return this.inner.getPushDelivery(scope, taskId, configId);
  }
  purgeExpired(policy: RetentionPolicy): Promise<PurgeReport> {
    return this.inner.purgeExpired(policy);
  }
  tryLead(role: string, holder: string, ttlMs: number): Promise<boolean> {
    return this.inner.tryLead(role, holder, ttlMs);
  }
  renewLease(scope: Scope, taskId: string, fence: number, owner: string, ttlMs: number): Promise<boolean> {
    return this.inner.renewLease(scope, taskId, fence, owner, ttlMs);
  }
  findLapsedLeases(limit: number): Promise<LapsedTask[]> {
    return this.inner.findLapsedLeases(limit);
  }
  recordStep(scope: Scope, taskId: string, input: StepInput): Promise<StepResult> {
    return this.inner.recordStep(scope, taskId, input);
  }
  getStep(scope: Scope, taskId: string, name: string): Promise<StepRecord | undefined> {
    return this.inner.getStep(scope, taskId, name);
  }
  writeStepAttempt(scope: Scope, taskId: string, input: StepAttemptInput): Promise<StepAttemptResult> {
    return this.inner.writeStepAttempt(scope, taskId, input);
  }
  getStepAttempt(scope: Scope, taskId: string, name: string): Promise<StepAttemptRecord | undefined> {
    return this.inner.getStepAttempt(scope, taskId, name);
  }
  recordParentRenewal(scope: Scope, taskId: string): Promise<boolean> {
    return this.inner.recordParentRenewal(scope, taskId);
  }
  lastParentRenewal(scope: Scope, taskId: string): Promise<number | undefined> {
    return this.inner.lastParentRenewal(scope, taskId);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** A store that keeps tasks but declares no key index: it cannot honour idempotency keys. */
export class NoKeysStore extends DelegatingStore {
  override get capabilities(): StoreCapabilities {
    return { idempotency: false, sharedAcrossProcesses: false };
  }
  override get supportsIdempotency(): boolean {
    return false;
  }
}

/** The scope of an anonymous caller on the default tenant. */
export const ANON: Scope = { tenant: '', owner: '' };

/**
 * Puts a task in `state` straight into the store (fence 1, one status event), with one user message in its history.
 * @returns the task and the user message as the client sent it (without ids).
 */
export async function seedTask(
  store: TaskStore,
  state: TaskState,
  opts: { scope?: Scope; text?: string } = {},
): Promise<{ task: Task; sent: Message }> {
  const sent = userMessage(opts.text ?? `seeded ${state}`);
  const id = randomUUID();
  const contextId = randomUUID();
  const task: Task = {
    id,
    contextId,
    status: { state, timestamp: new Date(0).toISOString() },
    history: [{ ...sent, taskId: id, contextId }],
  };
  const scope = opts.scope ?? ANON;
  // Created SUBMITTED, then moved to `state` by one write: a finished task takes no write (docs/semantics.md §4).
  const submitted: Task = { ...task, status: { ...task.status, state: 'TASK_STATE_SUBMITTED' } };
  const res = await store.createTask(scope, { task: submitted });
  if (res.outcome !== 'created') throw new Error(`could not seed a task: ${res.outcome}`);
  // One status event, as a real task that reached `state` would have emitted.
  const c = await store.commit(scope, id, {
    expectFence: 1,
    expectSeq: 0,
    task,
    events: [{ statusUpdate: { taskId: id, contextId, status: task.status } }],
  });
  if (!c.ok) throw new Error('could not seed the task event');
  return { task, sent };
}

// ---------------------------------------------------------------------------------------------------------------
// Servers

/** A recording logger: every entry as JSON text, so a test can search it for a key. */
export class CapturingLogger implements ServerLogger {
  readonly entries: { level: string; message: string; fields: LogFields | undefined }[] = [];
  debug(message: string, fields?: LogFields): void {
    this.entries.push({ level: 'debug', message, fields });
  }
  info(message: string, fields?: LogFields): void {
    this.entries.push({ level: 'info', message, fields });
  }
  warn(message: string, fields?: LogFields): void {
    this.entries.push({ level: 'warn', message, fields });
  }
  error(message: string, fields?: LogFields): void {
    this.entries.push({ level: 'error', message, fields });
  }
  /** Everything logged, as one string. */
  text(): string {
    return this.entries.map((e) => JSON.stringify(e)).join('\n');
  }
}

export const TEST_CARD: AgentCardInit = {
  name: 'duplicate-safety test agent',
  description: 'Scripted agent for the duplicate-safety suite',
  capabilities: { streaming: true },
};

/** A test server over the in-memory store (or `store`), its scripted agent, clock and metrics. */
export interface TestServer {
  readonly server: A2AServer;
  readonly ep: Endpoint;
  readonly agent: ScriptedAgent;
  readonly store: TaskStore;
  readonly memory: MemoryTaskStore;
  readonly clock: ManualClock;
  readonly metrics: InMemoryMetrics;
  readonly logger: CapturingLogger;
  close(): Promise<void>;
}

/** Options of `makeServer`. */
export type MakeServerOptions = Partial<Omit<A2AServerOptions, 'agent' | 'card'>> & {
  agent?: AgentExecutor;
  card?: AgentCardInit;
  http?: HttpOptions;
  memory?: MemoryTaskStoreOptions;
  /** Wraps the memory store (fault injection, capabilities). */
  wrap?: (memory: MemoryTaskStore) => TaskStore;
};

/** A server with a ManualClock (shared by the store), InMemoryMetrics and a capturing logger. */
/** Resolves every name to this machine (the push tests pass their own options). */
export const loopbackTestResolver = (): Promise<{ address: string; family: number }[]> =>
  Promise.resolve([{ address: '127.0.0.1', family: 4 }]);

export function makeServer(o: MakeServerOptions = {}): TestServer {
  const clock = o.clock instanceof ManualClock ? o.clock : new ManualClock();
  const memory = new MemoryTaskStore({ clock, ...o.memory });
  const store = o.store ?? (o.wrap ? o.wrap(memory) : memory);
  const agent = new ScriptedAgent();
  const metrics = new InMemoryMetrics();
  const logger = new CapturingLogger();
  const { wrap: _wrap, memory: _memory, agent: customAgent, card, ...rest } = o;
  const server = createA2AServer({
    metrics,
    logger,
    // Webhook names are checked against DNS when a config is created; the tests' names (hooks.example.com) are
    // answered by this stub instead, so no test waits on the machine's resolver, and any delivery goes to a
    // closed port on this machine, never to the internet.
    push: { resolve: loopbackTestResolver, allowPrivateTargets: true },
    ...rest,
    clock,
    store,
    agent: customAgent ?? agent,
    card: card ?? TEST_CARD,
  });
  return {
    server,
    ep: inProcess(server),
    agent,
    store,
    memory,
    clock,
    metrics,
    logger,
    close: async () => {
      agent.release();
      await withTimeout(server.close(), 5000, 'server.close').catch(() => undefined);
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Time

/** Rejects when `p` does not settle within `ms`. */
export async function withTimeout<T>(p: Promise<T>, ms: number, label: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${label}`)), ms);
      }),
    ]);
  } finally {
    if (timer) clearTimeout(timer);
  }
}

/** Polls `check` until it holds (fails after `timeoutMs`). */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
  label = 'condition',
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${label} not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Whether `p` is still pending after `ms`. */
export async function stillPending(p: Promise<unknown>, ms: number): Promise<boolean> {
  const marker = Symbol('pending');
  const r = await Promise.race([
    p.then(
      () => undefined,
      () => undefined,
    ),
    new Promise((res) => setTimeout(() => res(marker), ms)),
  ]);
  return r === marker;
}

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/**
 * A `makeServer` whose servers are all closed after each test of the calling `describe` block. Call it inside
 * the block: it registers the `afterEach`.
 */
export function serversClosedAfterEach(): (o?: MakeServerOptions) => TestServer {
  const servers: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  return (o: MakeServerOptions = {}) => {
    const s = makeServer(o);
    servers.push(s);
    return s;
  };
}
