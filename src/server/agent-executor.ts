/**
 * The API an agent is written against. An agent runs one turn of a task at a time (the first message, or a
 * continuation after INPUT_REQUIRED / AUTH_REQUIRED) and reports progress through its context: status updates,
 * artifacts (whole or in chunks), or a single direct reply. Every report is a fenced write to the store, so a
 * worker that was cancelled or overtaken cannot change the task (its writes throw and its signal aborts).
 * Reports made in one burst are stored together, at the end of the burst (ADR 0048): see `flush`.
 *
 * A turn whose worker was lost (its process died) is recovered: run again under a new fencing token when the
 * agent declares itself `resumable`, ended FAILED otherwise (ADR 0037). Work a resumed turn must not redo goes
 * through `ctx.step`, which records its result once per task and hands a deterministic key to pass downstream
 * (ADR 0038).
 */
import type { StepAttempt, StepOptions } from './step-options.js';
import type { Artifact, JsonObject, Message, Part, Task } from '../protocol/model.js';
import type { TaskState } from '../protocol/task-state.js';
import type { DelegateOptions } from './delegation/delegate.js';
import type { DelegationHandle } from '../delegation/index.js';
import type { PeerSource } from './delegation/peer-source.js';

/** An artifact to emit; `artifactId` is generated when absent. */
export interface ArtifactInit {
  artifactId?: string;
  name?: string;
  description?: string;
  parts: Part[];
  metadata?: JsonObject;
  extensions?: string[];
}

/** Options of a chunked artifact update (A2A `TaskArtifactUpdateEvent.append` / `lastChunk`). */
export interface ArtifactChunkOptions {
  /** Append the parts to the artifact with the same id instead of replacing it. */
  append?: boolean;
  /** This is the artifact's last chunk. */
  lastChunk?: boolean;
}

/** A status message: plain text, parts, or a full message (role, ids and messageId are filled in). */
export type StatusMessageInit = string | Part[] | Partial<Message>;

/**
 * Everything an agent can see and do during one turn. What it reports (messages, parts, artifacts) belongs to
 * the task from then on: do not edit those objects afterwards. A report the store cannot take even after
 * retries rejects with `StoreWriteError` and aborts `signal`; the task then ends FAILED (ADR 0029).
 *
 * When a report is stored (ADR 0048): a report that ends the turn (`complete`, `fail`, `reject`,
 * `requireInput`, `requireAuth`, `reply`) settles once it is stored. Other reports (`working`, `artifact`, a
 * running `status`) made early in a turn (its first third of the lease) settle at once and are stored with the
 * reports that follow them in the same burst, when the agent next waits for I/O, or before a `step` runs its
 * effect; later in a turn they settle once stored. If such a stored-behind report is refused (the task was
 * cancelled or taken over) or lost, `signal` aborts and the agent's next call throws the error. Call `flush`
 * to make everything reported so far durable before doing something that depends on it.
 *
 * A report after the task finished (after the report that ended the turn) is refused with `TaskFinishedError`
 * and changes nothing (ADR 0082). Await every report: one never awaited that is refused is an unhandled rejection.
 */
export interface AgentContext {
  readonly taskId: string;
  readonly contextId: string;
  /** The user message of this turn, as stored in the task's history. Frozen: copy it to edit it (ADR 0030). */
  readonly message: Message;
  /** The text parts of `message`, joined with newlines. */
  readonly userText: string;
  /** The task as it was when this turn started (history includes `message`). Frozen, like `message`. */
  readonly task: Task;
  /** True when this turn continues a task that was waiting for input. */
  readonly isContinuation: boolean;
  /**
   * True when this turn was started before, by a worker that was lost (its process died, or it lost the task
   * store for longer than its lease), and is now run again under a new fencing token (ADR 0037). `message` and
   * `task` are the same task and message; `task` holds whatever the lost worker stored. Steps it recorded are
   * not run again (`step`).
   */
  readonly isResumed: boolean;
  /**
   * True when this turn was started by `server.resumeTask` rather than by a message: the task was waiting in
   * AUTH_REQUIRED and its credential arrived out of band (A2A §7.6, ADR 0054). `message` is then the user message
   * of the turn that asked for it; fetch the credential from wherever it was delivered.
   */
  readonly resumedOutOfBand: boolean;
  readonly tenant: string;
  readonly principal: string | undefined;
  /** Extensions the client requested for the call that started this turn. */
  readonly requestedExtensions: readonly string[];
  /**
   * Aborts when the task is cancelled or another worker took it over (reason `StaleWriterError`), or when a
   * report could not be stored (reason `StoreWriteError`); stop work and return.
   */
  readonly signal: AbortSignal;

  /** Sets the task's status, with an optional agent message (kept in history). */
  status(state: TaskState, message?: StatusMessageInit, metadata?: JsonObject): Promise<void>;
  /** Shorthands for `status`. */
  working(message?: StatusMessageInit): Promise<void>;
  complete(message?: StatusMessageInit): Promise<void>;
  fail(message?: StatusMessageInit): Promise<void>;
  reject(message?: StatusMessageInit): Promise<void>;
  requireInput(message: StatusMessageInit): Promise<void>;
  requireAuth(message: StatusMessageInit): Promise<void>;
  /** Adds or replaces an artifact, or appends a chunk to one. */
  artifact(artifact: ArtifactInit, options?: ArtifactChunkOptions): Promise<Artifact>;
  /**
   * Answers with a bare Message instead of a task (A2A §3.1.1 "Response choice"). Allowed only as the first and
   * only output of a first turn; the task record then exists only so a keyed retry replays the same reply.
   */
  reply(message: StatusMessageInit): Promise<void>;

  /**
   * Stores every report made so far and resolves once they are durable (at once when nothing is waiting).
   * @throws StaleWriterError when the task was cancelled or taken over; StoreWriteError when a report was lost
   */
  flush(): Promise<void>;

  /**
   * A durable step (ADR 0038): runs `fn` at most once to completion per task and records its result (JSON) in
   * the store under this turn's fencing token; a later call with the same `name` in this task (a resumed turn,
   * a later turn, or this one) gets the recorded result without running `fn`. `fn` receives the step's
   * side-effect key (`sideEffectKey(name)`): pass it downstream as the idempotency key of the call the step
   * makes, because `fn` can run twice if a worker dies after `fn` did its work and before the result was
   * recorded. A result that returns nothing is recorded as `null`. Its second argument tells the attempt
   * number (durable over crashes) and an `AbortSignal` (cancel, lease lost, fence moved, timeout); `options`
   * add a retry policy, a timeout per attempt, at-most-once semantics and a result schema (ADR 0120 to 0123).
   * @throws StepError for a bad name (before `fn` runs), or a result that is not JSON or too large (nothing is
   *   recorded); StaleWriterError when the worker lost the task (checked before `fn` runs, and when recording);
   *   StepInterruptedError for an at-most-once step whose attempt started and never recorded its outcome;
   *   what `fn` threw on its last attempt
   */
  step<T>(
    name: string,
    fn: (sideEffectKey: string, attempt: StepAttempt) => T | Promise<T>,
    options?: StepOptions<T>,
  ): Promise<T>;
  /**
   * The side-effect key of step `name`: `<taskId>:<name>`, the same on every replica and every resume, and a
   * valid idempotency key (docs/semantics.md §1). @throws StepError for a bad name
   */
  sideEffectKey(name: string): string;

  /**
   * Delegates to another agent through `peer` (an `A2AClient`, or anything with the same calls): the child's
   * key is minted once and recorded as a durable step, so a retry or a resumed turn reaches the same child
   * (docs/semantics.md §4 "Delegation", ADR 0040). `peer` may be a function giving the client, called when the
   * delegation needs it (`lazyPeer(() => A2AClient.fromCardUrl(url))`), so a coordinator can start before its
   * child; a child not up yet fails the turn with `PeerUnavailableError` (ADR 0083). Same as
   * `delegate(ctx, peer, message, options)`.
   */
  delegate(peer: PeerSource, message: string | Message, options?: DelegateOptions): Promise<DelegationHandle>;
}

/** An agent. */
export interface AgentExecutor {
  /**
   * Runs one turn. Returning while the task is still SUBMITTED or WORKING completes it; throwing fails it. The
   * error's text stays in the server's log: the caller gets a generic status message naming an error id that the
   * log line carries, unless `agentErrorMessage` says otherwise (ADR 0081). Send a reason meant for the caller
   * with `ctx.fail(text)`. An error thrown after the task finished leaves the task as it is and is logged.
   */
  execute(ctx: AgentContext): Promise<void>;
  /**
   * Whether a turn whose worker was lost may be run again (`ctx.isResumed`), ADR 0037. Declare it only when a
   * second run of a turn is safe: every effect outside the task store goes through `ctx.step` or is harmless to
   * repeat. Left out or false, such a task ends FAILED with a status message saying the worker was lost.
   */
  readonly resumable?: boolean;
}

/** Thrown into an agent that writes after it lost the task (cancelled, or fenced out by another worker). */
export class StaleWriterError extends Error {
  override name = 'StaleWriterError';
  constructor(readonly taskId: string) {
    super(`task ${taskId} moved on without this worker (cancelled or taken over); the write was refused`);
  }
}

/** The write a `TaskFinishedError` refused. */
export type FinishedTaskWrite = 'status' | 'artifact' | 'reply' | 'step';

/**
 * Thrown into an agent that writes after its task finished: a second `complete`, an artifact after `fail`, a
 * step after `reply` (ADR 0082). Nothing was written; the task stays as it finished. Uncaught, it fails nothing:
 * the server logs it with its stack, which shows the late write's call site.
 */
export class TaskFinishedError extends Error {
  override name = 'TaskFinishedError';
  constructor(
    readonly taskId: string,
    /** Which write was refused. */
    readonly write: FinishedTaskWrite,
    /** The state a refused status write asked for. */
    readonly state?: TaskState,
  ) {
    super(
      `task ${taskId} is already finished; the ${write === 'status' && state ? `status ${state}` : write} ` +
        'was refused (nothing is accepted after the write that ends a turn)',
    );
  }
}

/** Why a step was refused. */
export type StepErrorCode =
  | 'STEP_NAME_INVALID'
  | 'STEP_RESULT_NOT_JSON'
  | 'STEP_RESULT_TOO_LARGE'
  /** The result `fn` returned, or the recorded one on replay, fails the step's `schema` (ADR 0120). */
  | 'STEP_RESULT_INVALID'
  /** The step's options cannot be honoured (a retry policy of no attempts, a negative timeout). */
  | 'STEP_OPTIONS_INVALID'
  /** Every attempt the retry policy allows was made and failed, an earlier call's included (ADR 0122). */
  | 'STEP_ATTEMPTS_EXHAUSTED'
  /** A retry would have outlived the task's lease, which could not be renewed: the task was failed (ADR 0122). */
  | 'STEP_RETRY_ABANDONED';

/** Thrown into an agent for a step the server cannot record (ADR 0038); nothing was recorded. */
export class StepError extends Error {
  override name = 'StepError';
  constructor(
    readonly code: StepErrorCode,
    message: string,
  ) {
    super(message);
  }
}
