/**
 * The A2A v1.0 core objects (proto `lf.a2a.v1`), as hand-written interfaces in their ProtoJSON shape:
 * camelCase keys, string enums, `bytes` as base64 strings, timestamps as ISO-8601 UTC strings.
 * The zod schemas in `schemas/` are tied to these types by a compile-time equality check.
 */
import type { Role, TaskState } from './task-state.js';

/** A free-form JSON object (`google.protobuf.Struct`). */
export type JsonObject = { [key: string]: unknown };

/** Fields every Part variant may carry (A2A v1.0). */
export interface PartBase {
  metadata?: JsonObject;
  filename?: string;
  mediaType?: string;
}

/** A text part. */
export interface TextPart extends PartBase {
  text: string;
}
/** Inline bytes, base64 (standard alphabet, padded) on the wire. */
export interface RawPart extends PartBase {
  raw: string;
}
/** A file reference by URL. */
export interface UrlPart extends PartBase {
  url: string;
}
/** Any JSON value (`google.protobuf.Value`). */
export interface DataPart extends PartBase {
  data: unknown;
}

/** `Part`: a oneof, so exactly one of `text`, `raw`, `url`, `data` is present. */
export type Part = TextPart | RawPart | UrlPart | DataPart;

/** A message between a client and an agent (A2A §4.1.4). */
export interface Message {
  messageId: string;
  contextId?: string;
  taskId?: string;
  role: Role;
  parts: Part[];
  metadata?: JsonObject;
  extensions?: string[];
  referenceTaskIds?: string[];
}

/** A task output (A2A §4.1.7). */
export interface Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: Part[];
  metadata?: JsonObject;
  extensions?: string[];
}

/** A task's current state, with an optional status message. */
export interface TaskStatus {
  state: TaskState;
  message?: Message;
  /** ISO-8601 UTC with milliseconds, ending in `Z`. */
  timestamp?: string;
}

/** A unit of work (A2A §4.1.1). */
export interface Task {
  id: string;
  contextId?: string;
  status: TaskStatus;
  artifacts?: Artifact[];
  history?: Message[];
  metadata?: JsonObject;
}

/** A status change, streamed or pushed. There is no `final` field in v1.0: the stream's end is the signal. */
export interface TaskStatusUpdateEvent {
  taskId: string;
  contextId: string;
  status: TaskStatus;
  metadata?: JsonObject;
}

/** An artifact (or a chunk of one, with `append`/`lastChunk`), streamed or pushed. */
export interface TaskArtifactUpdateEvent {
  taskId: string;
  contextId: string;
  artifact: Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: JsonObject;
}

/** One stream event: a oneof with exactly one member (A2A v1.0). */
export type StreamResponse =
  | { task: Task }
  | { message: Message }
  | { statusUpdate: TaskStatusUpdateEvent }
  | { artifactUpdate: TaskArtifactUpdateEvent };

/** The result of SendMessage: the wrapped task or message (never a bare Task). */
export type SendMessageResponse = { task: Task } | { message: Message };
