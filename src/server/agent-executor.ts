/**
 * The API an agent is written against. An agent runs one turn of a task at a time (the first message, or a
 * continuation after INPUT_REQUIRED / AUTH_REQUIRED) and reports progress through its context: status updates,
 * artifacts (whole or in chunks), or a single direct reply. Every report is a fenced write to the store, so a
 * worker that was cancelled or overtaken cannot change the task (its writes throw and its signal aborts).
 */
import type { Artifact, JsonObject, Message, Part, Task } from '../protocol/model.js';
import type { TaskState } from '../protocol/task-state.js';

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

/** Everything an agent can see and do during one turn. */
export interface AgentContext {
  readonly taskId: string;
  readonly contextId: string;
  /** The user message of this turn. */
  readonly message: Message;
  /** The text parts of `message`, joined with newlines. */
  readonly userText: string;
  /** The task as it was when this turn started (history includes `message`). */
  readonly task: Task;
  /** True when this turn continues a task that was waiting for input. */
  readonly isContinuation: boolean;
  readonly tenant: string;
  readonly principal: string | undefined;
  /** Extensions the client requested for the call that started this turn. */
  readonly requestedExtensions: readonly string[];
  /** Aborts when the task is cancelled or another worker took it over; stop work and return. */
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
}

/** An agent. */
export interface AgentExecutor {
  /**
   * Runs one turn. Returning while the task is still SUBMITTED or WORKING completes it; throwing fails it with
   * the error's message as the status message.
   */
  execute(ctx: AgentContext): Promise<void>;
}

/** Thrown into an agent that writes after it lost the task (cancelled, or fenced out by another worker). */
export class StaleWriterError extends Error {
  override name = 'StaleWriterError';
  constructor(readonly taskId: string) {
    super(`task ${taskId} moved on without this worker (cancelled or taken over); the write was refused`);
  }
}
