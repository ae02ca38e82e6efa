/**
 * Admission: the one gate between the bindings and the runner for every send (ADR 0002). In order:
 *   0. the message (and an inline push config) is plain JSON data within the wire's nesting limit, so nothing
 *      later fails to digest or store it (docs/semantics.md §2 "Input refused at the door", ADR 0031), and its
 *      names are text every store can hold (ADR 0059);
 *   1. scope (tenant + principal) and the key's form: a malformed key is refused before any claim;
 *   2. a keyed send to a store that cannot honour keys is refused;
 *   3. a message naming a task goes through the lifecycle guard (docs/semantics.md §3);
 *   4. a new task claims its key and is created in ONE atomic store step (docs/semantics.md §2). Every check
 *      that can refuse on its own terms ran before, and nothing with a side effect ran yet, so there is no
 *      window in which a key exists without its task: a racing retry always finds the first attempt's task.
 */
import { isoAt } from '../../protocol/iso-time.js';
import { newTimeOrderedUuid } from '../../protocol/uuid.js';
import {
  describeKeyError,
  IDEMPOTENCY_EXTENSION_URI,
  keyHash,
  messageDigest,
  mintTimeOf,
  readKey,
} from '../../idempotency/index.js';
import {
  A2AError,
  IdempotencyCapacityError,
  IdempotencyKeyExpiredError,
  IdempotencyKeyInvalidError,
  IdempotencyKeyReusedError,
  ServerBusyError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '../../protocol/errors.js';
import type { Message, Task } from '../../protocol/model.js';
import { toWireMessage } from '../../protocol/wire-write.js';
import type { SendMessageRequest, TaskPushNotificationConfig } from '../../protocol/requests.js';
import type { Clock } from '../../store/clock.js';
import type { StoredTask } from '../../store/records.js';
import type { Scope } from '../../store/scope.js';
import type {
  CreateTaskInput,
  CreateTaskResult,
  LeaseGrant,
  TaskStore,
  TaskWrite,
} from '../../store/task-store.js';
import type { CallContext } from '../call-context.js';
import { errorFields, logSafely } from '../observability/error-log.js';
import type { ServerLogger } from '../observability/logger.js';
import { newWriteId } from '../runner/write-id.js';
import { retryThrown, type WriteRetryPolicy } from '../runner/write-retry.js';
import { ADMISSION_COUNTER, type AdmissionOutcome, type ServerMetrics } from '../observability/metrics.js';
import { CRASH_ARMED, reachCrashPoint } from '../testing/crash-points.js';
import { assertPlainJson, assertStorableSend } from './admissible-input.js';
import { guardExistingTask } from './lifecycle-guard.js';

/** Admission settings (all from `A2AServerOptions`). */
export interface AdmissionConfig {
  readonly store: TaskStore;
  readonly clock: Clock;
  readonly keyTtlMs: number;
  /** Undefined: no cap. */
  readonly maxKeysPerScope: number | undefined;
  /** `refuse` (docs/semantics.md §2 default) or `treat-as-new` (a2a-rust's behaviour). */
  readonly expiredKeys: 'refuse' | 'treat-as-new';
  readonly metrics: ServerMetrics;
  readonly logger: ServerLogger;
  /** The worker lease of the turn that will run under `fence`, granted in the write that admits it (ADR 0037). */
  readonly lease?: (fence: number) => LeaseGrant;
  /**
   * How an admitting write (claim-and-create, a continuation's commit) is retried when the store throws: the same
   * write each time, so one that landed though its answer was lost is recognised and its turn started (ADR 0052).
   */
  readonly retry?: WriteRetryPolicy;
  /**
   * Told of a new task whose claim-and-create kept failing after it may have landed: nothing was started, so the
   * server looks for it once the store answers, and starts it if it is there (ADR 0052).
   */
  readonly onUnresolvedCreate?: (scope: Scope, input: CreateTaskInput) => void;
  /**
   * Told when a claim-and-create starts; the function it returns is called when it ends. While it runs (its
   * retries can outlast the task's first lease), this process's recovery leaves the task to it (ADR 0052).
   */
  readonly creating?: (scope: Scope, taskId: string) => () => void;
}

/** What admission decided; the handler then runs or attaches. */
export type Admission =
  /** A new task was created (and its key claimed): start its first turn. */
  | {
      readonly kind: 'created';
      readonly scope: Scope;
      readonly record: StoredTask;
      readonly message: Message;
    }
  /** An interrupted task was taken over for a new turn (fence + 1, WORKING): start the turn. */
  | {
      readonly kind: 'continued';
      readonly scope: Scope;
      readonly record: StoredTask;
      readonly message: Message;
    }
  /** A retry: attach to the task the first attempt created or continued. */
  | {
      readonly kind: 'replay';
      readonly scope: Scope;
      readonly record: StoredTask;
      readonly message: Message;
    };

/** The scope of a call: tenant and principal. */
export function scopeOf(ctx: CallContext): Scope {
  return { tenant: ctx.tenant, owner: ctx.principal ?? '' };
}

/** Admits a send, or throws the A2AError that refuses it. */
export async function admitSend(
  cfg: AdmissionConfig,
  params: SendMessageRequest,
  ctx: CallContext,
  inlinePushConfig: TaskPushNotificationConfig | undefined,
): Promise<Admission> {
  const scope = scopeOf(ctx);
  const message = params.message;
  const read = readKey(message);
  try {
    // Before anything else: what a digest or a store could not write is refused before any claim.
    assertPlainJson(message, 'message');
    if (inlinePushConfig) assertPlainJson(inlinePushConfig, 'configuration.taskPushNotificationConfig');
    assertStorableSend(message, scope.tenant, inlinePushConfig);
    if (read.error) {
      throw new IdempotencyKeyInvalidError({
        message: `Invalid idempotency key: ${describeKeyError(read.error)}`,
      });
    }
    const key = read.key;
    if (key !== undefined && !cfg.store.supportsIdempotency) {
      throw new UnsupportedOperationError(
        'This server cannot honour idempotency keys (its store has no key index; the agent card does not advertise the extension); send without a key',
      );
    }
    const admission =
      message.taskId !== undefined
        ? await admitToExistingTask(cfg, scope, message, message.taskId, key)
        : await admitNewTask(cfg, scope, message, key, inlinePushConfig);
    count(cfg, scope.tenant, admission.kind === 'replay' ? 'replayed' : 'claimed');
    if (key !== undefined && cfg.logger.enabled?.('debug') !== false) {
      const fields = { outcome: admission.kind, keyHash: keyHash(key), taskId: admission.record.task.id };
      safely(() => cfg.logger.debug('send admitted', fields));
    }
    return admission;
  } catch (err) {
    const reason = err instanceof A2AError ? err.reason : 'INTERNAL_ERROR';
    const outcome: AdmissionOutcome =
      reason === 'IDEMPOTENCY_KEY_REUSED'
        ? 'conflict'
        : reason === 'IDEMPOTENCY_KEY_EXPIRED'
          ? 'expired'
          : 'refused';
    count(cfg, scope.tenant, outcome, reason);
    if (read.key !== undefined && cfg.logger.enabled?.('info') !== false) {
      const fields = { outcome, reason, keyHash: keyHash(read.key) };
      safely(() => cfg.logger.info('send refused', fields));
    }
    throw err;
  }
}

/**
 * Counts an admission outcome. Host callbacks (metrics, logs) must never turn an admitted send into a failure: a
 * task created here and then abandoned by an exception would be replayed forever without ever running.
 * Attributes are written in sorted order (cheaper for sinks that key on them) and without per-call closures.
 */
function count(cfg: AdmissionConfig, tenant: string, outcome: AdmissionOutcome, reason?: string): void {
  try {
    cfg.metrics.add(ADMISSION_COUNTER, 1, reason ? { outcome, reason, tenant } : { outcome, tenant });
  } catch {
    // A broken metrics sink must not change what the caller is told.
  }
}

/**
 * Points the stored copy's declaration of the idempotency extension at the shared constant. The stored message
 * is kept as long as its task, and JSON.parse gives every request its own copy of the 48-character URI.
 */
function internExtensionUri(stored: Message): void {
  const ext = stored.extensions;
  if (!ext) return;
  for (let i = 0; i < ext.length; i++)
    if (ext[i] === IDEMPOTENCY_EXTENSION_URI) ext[i] = IDEMPOTENCY_EXTENSION_URI;
}

/** Runs a host callback; its failure is not the send's failure. */
function safely(f: () => void): void {
  try {
    f();
  } catch {
    // A broken metrics or log sink must not change what the caller is told.
  }
}

function digestWithIds(task: Task): (m: Message) => string {
  return (m) => messageDigest({ ...m, contextId: task.contextId, taskId: task.id });
}

async function admitToExistingTask(
  cfg: AdmissionConfig,
  scope: Scope,
  message: Message,
  taskId: string,
  key: string | undefined,
): Promise<Admission> {
  if (key !== undefined) {
    // Cheap early refusal: a key that belongs to another message is never answered with this task.
    const held = await cfg.store.getKey(scope, key);
    if (held && !held.tombstone && held.messageId !== message.messageId) throw reused(held.messageId);
  }
  let claimed = false;
  try {
    // The compare-and-set below can lose to a concurrent writer (another continuation, a cancel, the agent):
    // re-read and decide again. Each round sees a newer version, so this settles quickly.
    for (let attempt = 0; attempt < 16; attempt++) {
      const record = await cfg.store.getTask(scope, taskId);
      const verdict = guardExistingTask(
        record,
        message,
        digestWithIds(record?.task ?? ({ id: taskId } as Task)),
      );
      if (verdict.kind !== 'continue') {
        // The message is in the task's history: an identical send (a retry racing this one) continued the task
        // with it, possibly winning the compare-and-set below against our claim. Our key now protects that
        // run, so it must never be released (docs/semantics.md §3).
        if (claimed && carriesMessage(record, message.messageId)) claimed = false;
        if (verdict.kind === 'refuse') throw verdict.error;
        return { kind: 'replay', scope, record: record!, message };
      }
      const cur = record!;
      if (key !== undefined && !claimed) {
        // A keyed continuation claims its key like any keyed send (docs/semantics.md §2), so the key later
        // conflicts with any other message and counts toward its TTL and the tenant's cap.
        claimed = await claimContinuationKey(cfg, scope, message, key, taskId);
      }
      // Stored in strict wire form (defaults omitted), so history reads back exactly as ProtoJSON writes it.
      const stored = toWireMessage({ ...message, contextId: cur.task.contextId, taskId: cur.task.id });
      const status = {
        state: 'TASK_STATE_WORKING' as const,
        timestamp: isoAt(cfg.clock.now()),
      };
      const task: Task = { ...cur.task, status, history: [...(cur.task.history ?? []), stored] };
      const write: TaskWrite = {
        expectFence: cur.fence,
        expectSeq: cur.seq,
        nextFence: cur.fence + 1,
        task,
        events: [{ statusUpdate: { taskId, contextId: cur.task.contextId ?? '', status } }],
        lease: cfg.lease?.(cur.fence + 1),
        writeId: newWriteId(),
      };
      const res = await retried(
        cfg,
        () => cfg.store.commit(scope, taskId, write),
        'continuation',
        taskId,
        key,
      );
      if (res.ok) {
        claimed = false; // the key now belongs to a continuation that happened
        return { kind: 'continued', scope, record: res.record, message: stored };
      }
    }
    throw new ServerBusyError('The task is changing too fast to admit this message; retry');
  } finally {
    // Refused after claiming (the task moved on meanwhile): the key protected nothing, free it.
    if (claimed && key !== undefined) await cfg.store.releaseKey(scope, key, taskId, message.messageId);
  }
}

/** Whether the task's history holds a message with this id (then a continuation carried it). */
function carriesMessage(record: StoredTask | undefined, messageId: string): boolean {
  return record?.task.history?.some((m) => m.messageId === messageId) === true;
}

/**
 * Claims a continuation's key for its task. Returns true when this call claimed it; false when the same message
 * already holds it (a concurrent retry of this continuation: the compare-and-set decides which one runs).
 */
async function claimContinuationKey(
  cfg: AdmissionConfig,
  scope: Scope,
  message: Message,
  key: string,
  taskId: string,
): Promise<boolean> {
  const now = cfg.clock.now();
  const res = await cfg.store.claimKey(scope, {
    claim: {
      key,
      messageId: message.messageId,
      digest: messageDigest(message),
      expiresAt: now + cfg.keyTtlMs,
    },
    taskId,
    ...(cfg.maxKeysPerScope !== undefined ? { maxKeysPerScope: cfg.maxKeysPerScope } : {}),
    onExpiredKey: cfg.expiredKeys === 'refuse' ? 'refuse' : 'replace',
  });
  switch (res.outcome) {
    case 'claimed':
      return true;
    case 'held':
      if (res.key.messageId !== message.messageId || res.key.taskId !== taskId)
        throw reused(res.key.messageId);
      return false;
    case 'expired':
      throw expired();
    case 'capacity':
      throw new IdempotencyCapacityError({ retryAfterSeconds: 30 });
  }
}

function reused(heldBy: string): A2AError {
  return new IdempotencyKeyReusedError({
    message: `Idempotency key was already used for message ${heldBy}; a retry must resend the identical message`,
    metadata: { heldByMessageId: heldBy },
  });
}

async function admitNewTask(
  cfg: AdmissionConfig,
  scope: Scope,
  message: Message,
  key: string | undefined,
  inlinePushConfig: TaskPushNotificationConfig | undefined,
): Promise<Admission> {
  const now = cfg.clock.now();
  if (key !== undefined && cfg.expiredKeys === 'refuse') {
    // A key whose mint time says it is older than the TTL is expired even if the store forgot it
    // (docs/semantics.md §2 "age still known"), unless the store still holds it live (then it replays below).
    const minted = mintTimeOf(key, now);
    if (minted !== undefined && now - minted > cfg.keyTtlMs) {
      const held = await cfg.store.getKey(scope, key);
      if (!held || held.tombstone) throw expired();
    }
  }
  // Time-ordered: a durable store's indexes on task and context ids then grow at one end (ADR 0048).
  const taskId = newTimeOrderedUuid();
  const contextId = message.contextId ?? newTimeOrderedUuid();
  // Stored in strict wire form (defaults omitted), so history reads back exactly as ProtoJSON writes it.
  const stored = toWireMessage(message);
  internExtensionUri(stored);
  const sentContextId = message.contextId;
  stored.contextId = contextId;
  stored.taskId = taskId;
  const task: Task = {
    id: taskId,
    contextId,
    status: { state: 'TASK_STATE_SUBMITTED', timestamp: isoAt(now) },
    history: [stored],
  };
  // Assembled by assignment: `...(cond ? {…} : {})` would allocate an empty object on every unkeyed send.
  const input: { -readonly [K in keyof CreateTaskInput]: CreateTaskInput[K] } = { task };
  if (cfg.lease) input.lease = cfg.lease(1);
  if (key !== undefined) {
    input.claim = {
      key,
      messageId: message.messageId,
      // Deferred, and computed from the stored copy (already kept in the task's history) rather than
      // `message`, so a key that is never retried keeps no second copy of its message alive.
      digest: () => messageDigest({ ...stored, contextId: sentContextId, taskId: undefined }),
      expiresAt: now + cfg.keyTtlMs,
    };
    if (cfg.maxKeysPerScope !== undefined) input.maxKeysPerScope = cfg.maxKeysPerScope;
    input.onExpiredKey = cfg.expiredKeys === 'refuse' ? 'refuse' : 'replace';
  }
  if (inlinePushConfig) input.pushConfigs = [{ ...inlinePushConfig, taskId }];
  let res: CreateTaskResult;
  const created = cfg.creating?.(scope, taskId);
  try {
    res = await retried(cfg, () => cfg.store.createTask(scope, input), 'claim-and-create', taskId, key);
  } catch (err) {
    // It may have landed all the same: the server looks for it when the store answers (ADR 0052).
    cfg.onUnresolvedCreate?.(scope, input);
    throw err;
  } finally {
    created?.();
  }
  switch (res.outcome) {
    case 'created':
      // An earlier attempt created it, its answer lost: ours to start, unless it moved on meanwhile (a takeover
      // by recovery already runs it).
      if (res.landedEarlier && (res.record.fence !== 1 || res.record.seq !== 0))
        return { kind: 'replay', scope, record: res.record, message };
      if (CRASH_ARMED) reachCrashPoint('after-claim'); // test-only (ADR 0041): task and key stored, agent not started
      return { kind: 'created', scope, record: res.record, message: stored };
    case 'held': {
      if (res.key.messageId !== message.messageId) throw reused(res.key.messageId);
      // Digested in stored form, as the claim was (see above), so both sides are written the same way.
      if (res.key.digest !== messageDigest(toWireMessage(message))) {
        throw new IdempotencyKeyReusedError({
          message: `Idempotency key was already used for message ${message.messageId} with different content`,
          metadata: { heldByMessageId: res.key.messageId },
        });
      }
      const record = await cfg.store.getTask(scope, res.key.taskId);
      // The key outlives its task: a task removed by retention is not found, and the send does not run again.
      if (!record)
        throw new TaskNotFoundError({ message: 'The task this key created has been removed by retention' });
      return { kind: 'replay', scope, record, message };
    }
    case 'expired':
      throw expired();
    case 'capacity':
      throw new IdempotencyCapacityError({ retryAfterSeconds: 30 });
    case 'full':
      throw new ServerBusyError({
        message: 'The task store is at capacity; retry later',
        retryAfterSeconds: 5,
      });
  }
}

function expired(): A2AError {
  return new IdempotencyKeyExpiredError({
    message:
      'Idempotency key has expired: the send it protected may already have run; send again with a new key if you mean to',
  });
}

/**
 * An admitting write, retried when the store throws (a dropped connection, a lost answer), the same write each
 * time: the store recognises one that landed (ADR 0052). Without a policy, one attempt.
 */
function retried<T>(
  cfg: AdmissionConfig,
  write: () => Promise<T>,
  what: string,
  taskId: string,
  key: string | undefined,
): Promise<T> {
  if (!cfg.retry) return write();
  return retryThrown(write, cfg.retry, cfg.retry.writeBudgetMs, (err, attempt, retryInMs) =>
    logSafely(cfg.logger, 'warn', 'store write failed; retrying', {
      taskId,
      write: what,
      attempt,
      retryInMs,
      ...errorFields(err, key),
    }),
  );
}
