/**
 * The default RequestHandler: the eleven operations over a TaskStore, with admission (dedup + lifecycle guard)
 * in front of the runner. Transport-agnostic; bindings in `http/` call it.
 *
 * Every turn runs under a lease (ADR 0037): granted with the write that admits it, so a send pays no extra store
 * round trip. A request that touches a task whose lease lapsed (a keyed replay, GetTask, a subscription) recovers
 * it at once instead of answering with the lost worker's last snapshot.
 */
import { CardSigner } from './card-signer.js';
import { readKey, IDEMPOTENCY_EXTENSION_URI, IDEMPOTENCY_METADATA_KEY } from '../idempotency/index.js';
import type { AgentCard } from '../protocol/agent-card.js';
import {
  A2AError,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  InternalError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '../protocol/errors.js';
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
import { isTerminalState } from '../protocol/task-state.js';
import type { StoredTask } from '../store/records.js';
import type { Scope } from '../store/scope.js';
import { admitSend, scopeOf, type Admission, type AdmissionConfig } from './admission/admission.js';
import type { CallContext } from './call-context.js';
import { errorFields, logSafely, noteTaskId } from './observability/error-log.js';
import type { ServerLogger } from './observability/logger.js';
import { ADMISSION_COUNTER, histogramsOf, type HistogramSink } from './observability/metrics.js';
import { TaskTraces } from './observability/task-traces.js';
import { traceAdmission } from './observability/trace-admission.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { live } from '../telemetry/telemetry.js';
import { advertisePush, buildAgentCard, deliversPush, requiredExtensions } from './card.js';
import { checkDelegationDepth } from './delegation/delegation-chain.js';
import { TaskCancel } from './task-cancel.js';
import { TaskResume, type ResumeOptions, type ResumeResult, type ResumeTarget } from './task-resume.js';
import { resolveServerOptions, type A2AServerOptions, type ResolvedServerOptions } from './options.js';
import * as push from './push/push-config-ops.js';
import { PushDispatcher } from './push/push-dispatcher.js';
import { resolvePushOptions, type ResolvedPushOptions } from './push/push-options.js';
import { checkWebhookParam } from './push/webhook-param.js';
import type { RequestHandler } from './request-handler.js';
import { LostCreations } from './recovery/lost-creation.js';
import { TaskRecovery } from './recovery/task-recovery.js';
import { DEFAULT_WRITE_RETRY } from './runner/write-retry.js';
import { Runner } from './runner/runner.js';
import { defaultWorkerName, TurnLeases } from './runner/turn-lease.js';
import { shapeTask } from './task-events.js';
import { followTask, streamBase, waitFor } from './task-follow.js';
import { resumePoint } from './stream-resume.js';

/** The a2a-once request handler. */
export class A2ARequestHandler implements RequestHandler {
  readonly options: ResolvedServerOptions;
  readonly agentCard: AgentCard;
  readonly cardSigner: CardSigner | undefined;
  readonly grpcInterface: { readonly url: string; readonly tenant?: string } | undefined;
  readonly runner: Runner;
  /** Takes over tasks whose worker was lost (ADR 0037); `createA2AServer` also runs it on a schedule. */
  readonly recovery: TaskRecovery;
  /** The leases this server's turns run under; `leases.workerName` names this server instance in them. */
  readonly leases: TurnLeases;
  /**
   * Push delivery (ADR 0045), when the card declares push notifications and the host did not turn delivery off;
   * `createA2AServer` starts it.
   */
  readonly push: PushDispatcher | undefined;
  readonly #pushOptions: ResolvedPushOptions | undefined;
  /** Whether this server delivers push notifications; both cards say so. */
  readonly #delivers: boolean;
  readonly #admission: AdmissionConfig;
  readonly #required: string[];
  /** New tasks whose creation answer was lost, looked for until the store answers (ADR 0052). */
  readonly #lostCreations: LostCreations;
  /** CancelTask, and the delegation subtrees a cancel stops (ADR 0062). */
  readonly #cancel: TaskCancel;
  /** Out-of-band resumes of AUTH_REQUIRED tasks (ADR 0054). */
  readonly #resume: TaskResume;
  /** The trace each task was created in, with telemetry (ADR 0093). */
  readonly #traces: TaskTraces | undefined;

  constructor(options: A2AServerOptions) {
    this.options = resolveServerOptions(options);
    const o = this.options;
    this.histograms = histogramsOf(o.metrics);
    // The card says what the server does: it delivers push unless the host turned push off (ADR 0057).
    const delivers = deliversPush(o.card.capabilities?.pushNotifications, o.push);
    this.#delivers = delivers;
    this.agentCard = buildAgentCard(o.card, o.store.supportsIdempotency, o.keyTtlMs, delivers);
    this.#required = requiredExtensions(this.agentCard);
    this.cardSigner = o.cardSigning ? new CardSigner(o.cardSigning) : undefined;
    this.grpcInterface = o.grpcInterface;
    this.#cancel = new TaskCancel({
      store: o.store,
      clock: o.clock,
      logger: o.logger,
      runner: () => this.runner,
      committed: (scope, taskId) => this.push?.committed(scope, taskId),
    });
    const workerName = defaultWorkerName();
    const traces = (this.#traces = o.telemetry
      ? new TaskTraces({ store: o.store, logger: o.logger })
      : undefined);
    const tracing =
      o.telemetry && traces
        ? { telemetry: o.telemetry, traceOf: (scope: Scope, id: string) => traces.find(scope, id) }
        : undefined;
    const pushOptions = delivers && o.push !== false ? resolvePushOptions(o.push) : undefined;
    this.#pushOptions = pushOptions;
    const dispatcher = pushOptions
      ? new PushDispatcher(o.store, pushOptions, o.logger, o.clock, `${workerName}:push`, tracing, o.metrics)
      : undefined;
    this.push = dispatcher;
    const retry = { ...DEFAULT_WRITE_RETRY, writeBudgetMs: o.storeWriteBudgetMs };
    this.runner = new Runner(o.store, o.agent, o.logger, o.clock, retry, {
      leaseMs: o.leaseMs,
      maxStepResultBytes: o.maxStepResultBytes,
      delegation: o.delegation,
      agentErrorMessage: o.agentErrorMessage,
      onAncestorCancelled: (token: string) => this.#cancel.subtreeCancelled(token),
      ...(dispatcher
        ? { onCommitted: (scope: Scope, taskId: string) => dispatcher.committed(scope, taskId) }
        : {}),
      ...(tracing ?? {}),
      metrics: o.metrics,
    });
    const leases = (this.leases = new TurnLeases(workerName, o.leaseMs));
    const lost = (this.#lostCreations = new LostCreations({
      store: o.store,
      runner: this.runner,
      clock: o.clock,
      logger: o.logger,
      leases,
      retry,
    }));
    this.recovery = new TaskRecovery({
      lostCreations: lost,
      retry,
      store: o.store,
      runner: this.runner,
      clock: o.clock,
      logger: o.logger,
      leases,
      resumable: o.agent.resumable === true,
      metrics: o.metrics,
      // maxResumes, batchSize, concurrency (the schedule reads intervalMs).
      ...(o.recovery === false ? {} : o.recovery),
    });
    this.#resume = new TaskResume({
      store: o.store,
      clock: o.clock,
      logger: o.logger,
      runner: () => this.runner,
      lease: (fence) => leases.grant(fence),
      retry,
    });
    this.#admission = {
      lease: (fence) => leases.grant(fence),
      store: o.store,
      clock: o.clock,
      keyTtlMs: o.keyTtlMs,
      maxKeysPerScope: o.maxKeysPerScope,
      expiredKeys: o.expiredKeys,
      metrics: o.metrics,
      logger: o.logger,
      retry,
      onUnresolvedCreate: (scope, input) => lost.add(scope, input),
      creating: (scope, taskId) => lost.creating(scope, taskId),
    };
  }

  /** Where unexpected errors are logged (the bindings log the ones they answer with). */
  get logger(): ServerLogger {
    return this.options.logger;
  }

  /** The histograms of the host's metrics (ADR 0094): the bindings time each call with them. */
  readonly histograms: HistogramSink | undefined;

  /** The host's telemetry (ADR 0091): the bindings start a SERVER span per call with it. */
  get telemetry(): Telemetry | undefined {
    return this.options.telemetry;
  }

  /** Checks `required: true` extensions (A2A §3.3.4) and activates what the client asked for and we declare. */
  #negotiate(ctx: CallContext): void {
    for (const uri of this.#required) {
      if (!ctx.requestedExtensions.includes(uri)) {
        throw new ExtensionSupportRequiredError({
          message: `Extension ${uri} is required`,
          metadata: { uri },
        });
      }
    }
    const declared = this.agentCard.capabilities.extensions;
    if (!declared || ctx.requestedExtensions.length === 0) return;
    for (const uri of ctx.requestedExtensions) {
      if (declared.some((e) => e.uri === uri)) ctx.activatedExtensions.add(uri);
    }
  }

  async #admit(params: SendMessageRequest, ctx: CallContext): Promise<Admission> {
    this.#negotiate(ctx);
    // A delegation chain past the depth limit, or below a task known to be cancelled, is refused before anything
    // is claimed (ADR 0061, ADR 0062).
    checkDelegationDepth(params.message, this.options.delegation.maxDepth);
    this.#cancel.cancelled.check(params.message);
    const inline = params.configuration?.taskPushNotificationConfig;
    let pushConfig: TaskPushNotificationConfig | undefined;
    if (inline) {
      push.assertPushSupported(this.agentCard);
      pushConfig = push.preparePushConfig(inline, '');
      await checkWebhookParam(pushConfig.url, this.#pushOptions);
    }
    const admission = await admitSend(this.#admission, params, ctx, pushConfig);
    if (ctx.notes) ctx.notes.admission = admission.kind === 'replay' ? 'replayed' : admission.kind;
    const telemetry = live(this.options.telemetry);
    if (this.#traces && telemetry) await traceAdmission(telemetry, this.#traces, admission);
    if (pushConfig && admission.kind !== 'replay')
      this.push?.track(admission.scope, admission.record.task.id);
    if (admission.kind === 'replay') {
      // A retry of a task whose worker was lost must not wait on (or stream) a task nobody runs.
      if (!this.recovery.lapsed(admission.record)) return admission;
      return { ...admission, record: await this.recovery.touched(admission.scope, admission.record) };
    }
    try {
      void this.runner.start({
        scope: admission.scope,
        record: admission.record,
        message: admission.message,
        isContinuation: admission.kind === 'continued',
        requestedExtensions: ctx.requestedExtensions,
        principal: ctx.principal,
      });
    } catch (err) {
      // Nothing ran: free the key before answering, so the caller's immediate retry runs (SEMANTICS §2
      // "Claim placement"). Awaited: an answer that raced the release would let the retry replay a task that
      // is about to be deleted.
      if (admission.kind === 'created') await this.#release(admission);
      // The binding logs the answer; only here is the task known (ADR 0029).
      const answer = err instanceof A2AError ? err : new InternalError({ cause: err });
      throw noteTaskId(answer, admission.record.task.id);
    }
    // A cancel above it may have been heard while this send was being admitted: it goes the way of its subtree.
    const cancelledAbove =
      admission.kind === 'continued'
        ? undefined
        : this.#cancel.cancelled.cancelledAncestor(admission.message);
    if (cancelledAbove !== undefined)
      void this.#cancel.cancelBelow(admission.scope, admission.record.task.id, cancelledAbove);
    // Admitted, so a key present is a valid one (a malformed key was refused): no second readKey needed.
    if (typeof params.message.metadata?.[IDEMPOTENCY_METADATA_KEY] === 'string')
      ctx.activatedExtensions.add(IDEMPOTENCY_EXTENSION_URI);
    return admission;
  }

  async #release(a: Admission): Promise<void> {
    try {
      const released = await this.options.store.releaseClaim(
        a.scope,
        a.record.task.id,
        readKey(a.message).key,
      );
      if (released) {
        this.options.metrics.add(ADMISSION_COUNTER, 1, { tenant: a.scope.tenant, outcome: 'released' });
      }
    } catch (err) {
      logSafely(this.options.logger, 'error', 'could not release a claim', {
        taskId: a.record.task.id,
        ...errorFields(err, readKey(a.message).key),
      });
    }
  }

  async sendMessage(params: SendMessageRequest, ctx: CallContext): Promise<SendMessageResponse> {
    const a = await this.#admit(params, ctx);
    const o = this.options;
    // A retry honours its own mode (SEMANTICS §2 "replay"): blocking waits like the first call would;
    // returnImmediately answers right after creation (A2A §3.2.2), after a short grace for the agent's first
    // report so a quick agent's answer is not a bare SUBMITTED snapshot and a direct reply stays a message.
    const record =
      params.configuration?.returnImmediately === true
        ? await waitFor(
            o.store,
            a.scope,
            a.record,
            o.returnImmediatelyGraceMs,
            ctx.signal,
            'first-event',
            o.logger,
            a.kind === 'created',
          )
        : await waitFor(
            o.store,
            a.scope,
            a.record,
            o.blockingTimeoutMs,
            ctx.signal,
            'settled',
            o.logger,
            a.kind === 'created',
          );
    return this.#respond(record, params.configuration?.historyLength);
  }

  #respond(record: StoredTask, historyLength: number | undefined): SendMessageResponse {
    if (record.kind === 'message' && record.reply) return { message: record.reply };
    return { task: shapeTask(record.task, historyLength) };
  }

  async sendStreamingMessage(
    params: SendMessageRequest,
    ctx: CallContext,
  ): Promise<AsyncIterable<StreamResponse>> {
    this.#assertStreaming();
    const a = await this.#admit(params, ctx);
    const o = this.options;
    if (ctx.notes) ctx.notes.streamSeq = streamBase(a.record);
    return followTask(o.store, a.scope, a.record, a.kind === 'replay', ctx.signal, o.logger);
  }

  #assertStreaming(): void {
    if (this.agentCard.capabilities.streaming !== true) {
      throw new UnsupportedOperationError('Streaming is not supported by this agent');
    }
  }

  async #visibleTask(ctx: CallContext, id: string): Promise<StoredTask> {
    // A direct-reply outcome is visible by id (a `returnImmediately` caller may hold it) as a completed task.
    const record = await this.options.store.getTask(scopeOf(ctx), id);
    if (!record) throw new TaskNotFoundError();
    return record;
  }

  async getTask(params: GetTaskRequest, ctx: CallContext): Promise<Task> {
    this.#negotiate(ctx);
    let record = await this.#visibleTask(ctx, params.id);
    if (this.recovery.lapsed(record)) record = await this.recovery.touched(scopeOf(ctx), record);
    // A delegating parent's poll renews the lease it gave this task (ADR 0039), in the store, so the replica
    // running the task sees it (ADR 0044). Only a caller allowed to see the task got this far.
    if (ctx.renewsDelegationLease === true) await this.#renewParentLease(ctx, params.id);
    return shapeTask(record.task, params.historyLength);
  }

  /**
   * Records the renewal. A store that fails it does not fail the read: the parent's next poll renews again, and
   * a lease is three polls long; the failure is logged.
   */
  async #renewParentLease(ctx: CallContext, taskId: string): Promise<void> {
    try {
      await this.options.store.recordParentRenewal(scopeOf(ctx), taskId);
    } catch (err) {
      logSafely(this.options.logger, 'warn', 'a delegation lease renewal could not be recorded', {
        taskId,
        ...errorFields(err),
      });
    }
  }

  async listTasks(params: ListTasksRequest, ctx: CallContext): Promise<ListTasksResponse> {
    this.#negotiate(ctx);
    const pageSize = params.pageSize ?? 50;
    const page = await this.options.store.listTasks(scopeOf(ctx), {
      pageSize,
      ...(params.contextId !== undefined ? { contextId: params.contextId } : {}),
      ...(params.status !== undefined ? { status: params.status } : {}),
      ...(params.statusTimestampAfter !== undefined
        ? { statusTimestampAfter: params.statusTimestampAfter }
        : {}),
      ...(params.pageToken ? { pageToken: params.pageToken } : {}),
    });
    const includeArtifacts = params.includeArtifacts === true;
    const tasks = page.records.map((r) => {
      const t = shapeTask(r.task, params.historyLength, includeArtifacts);
      // includeArtifacts=true: the key is present, possibly [] (digest §2.5).
      return includeArtifacts && t.artifacts === undefined ? { ...t, artifacts: [] } : t;
    });
    return { tasks, nextPageToken: page.nextPageToken, pageSize, totalSize: page.totalSize };
  }

  /**
   * Resumes a task waiting in AUTH_REQUIRED whose credential arrived out of band (A2A §7.6, ADR 0054): one fenced
   * write to WORKING, then a turn with `ctx.resumedOutOfBand`. A task not waiting for authorization is answered
   * `{ resumed: false }` with how it stands, and nothing starts, so a callback delivered twice resumes once.
   * This is the host's call, not a wire operation: authorize it yourself (it names the task's tenant and principal).
   * @throws TaskNotFoundError when the task is not in that tenant and principal
   */
  resumeTask(target: ResumeTarget, options?: ResumeOptions): Promise<ResumeResult> {
    return this.#resume.resume(target, options);
  }

  async cancelTask(params: CancelTaskRequest, ctx: CallContext): Promise<Task> {
    this.#negotiate(ctx);
    return this.#cancel.cancel(scopeOf(ctx), params.id, () => this.#visibleTask(ctx, params.id));
  }

  async subscribeToTask(
    params: SubscribeToTaskRequest,
    ctx: CallContext,
  ): Promise<AsyncIterable<StreamResponse>> {
    this.#assertStreaming();
    this.#negotiate(ctx);
    let record = await this.#visibleTask(ctx, params.id);
    if (this.recovery.lapsed(record)) record = await this.recovery.touched(scopeOf(ctx), record);
    const after = resumePoint(record, ctx.resumeAfter);
    // A finished task refuses a subscription (A2A v1.0), unless it is resumed from before its last event: the
    // caller's stream has not ended yet, and the rest of it is in the log (ADR 0125).
    if (isTerminalState(record.task.status.state) && (after === undefined || after >= record.seq)) {
      throw new UnsupportedOperationError({
        message: `Task is in terminal state ${record.task.status.state}; nothing more will happen`,
        metadata: { taskId: params.id, state: record.task.status.state },
      });
    }
    if (ctx.notes) ctx.notes.streamSeq = after ?? streamBase(record);
    const o = this.options;
    return followTask(o.store, scopeOf(ctx), record, false, ctx.signal, o.logger, after);
  }

  async createTaskPushNotificationConfig(
    params: TaskPushNotificationConfig,
    ctx: CallContext,
  ): Promise<TaskPushNotificationConfig> {
    this.#negotiate(ctx);
    push.assertPushSupported(this.agentCard);
    const scope = scopeOf(ctx);
    const created = await push.createPushConfig(
      this.options.store,
      scope,
      params,
      this.options.maxPushConfigsPerTask,
      (url) => checkWebhookParam(url, this.#pushOptions),
    );
    // The task's past events are due to the new webhook now, its next ones as they are committed.
    this.push?.track(scope, created.taskId ?? '');
    this.push?.wake();
    return created;
  }

  getTaskPushNotificationConfig(
    params: TaskPushNotificationConfigRef,
    ctx: CallContext,
  ): Promise<TaskPushNotificationConfig> {
    this.#negotiate(ctx);
    push.assertPushSupported(this.agentCard);
    return push.getPushConfig(this.options.store, scopeOf(ctx), params);
  }

  listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
    ctx: CallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    this.#negotiate(ctx);
    push.assertPushSupported(this.agentCard);
    return push.listPushConfigs(this.options.store, scopeOf(ctx), params);
  }

  deleteTaskPushNotificationConfig(params: TaskPushNotificationConfigRef, ctx: CallContext): Promise<void> {
    this.#negotiate(ctx);
    push.assertPushSupported(this.agentCard);
    return push.deletePushConfig(this.options.store, scopeOf(ctx), params);
  }

  async getExtendedAgentCard(_params: GetExtendedAgentCardRequest, ctx: CallContext): Promise<AgentCard> {
    this.#negotiate(ctx);
    if (this.agentCard.capabilities.extendedAgentCard !== true) {
      throw new UnsupportedOperationError('This agent has no extended card');
    }
    const ext = this.options.extendedCard;
    if (!ext) throw new ExtendedAgentCardNotConfiguredError();
    const card = typeof ext === 'function' ? await ext(ctx) : ext;
    // The extended card states the same delivery as the public one (ADR 0057).
    const capabilities = advertisePush(card.capabilities, this.#delivers);
    return capabilities === card.capabilities ? card : { ...card, capabilities };
  }

  /** Waits for running turns to finish (renewing their leases meanwhile), then closes the store. */
  async close(): Promise<void> {
    this.#lostCreations.close();
    await this.runner.drain();
    this.runner.close();
    await this.push?.close();
    await this.#traces?.drain();
    await this.options.store.close();
  }
}
