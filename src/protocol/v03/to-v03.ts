/**
 * v1.0 results and stream events into their v0.3 form: `kind` discriminators, kebab states, `final` on status
 * updates, the nested push config. What v0.3 cannot hold is dropped and listed in ADR 0098: a text or data
 * part's `filename`/`mediaType`, `ROLE_UNSPECIFIED` (written as `agent`), an authentication's single scheme
 * becomes a one-entry `schemes`.
 */
import type { Artifact, Message, Part, StreamResponse, Task, TaskStatus } from '../model.js';
import type { TaskPushNotificationConfig } from '../requests.js';
import { isSettledState } from '../task-state.js';
import type {
  V03Artifact,
  V03Message,
  V03Part,
  V03PushConfig,
  V03StreamEvent,
  V03Task,
  V03TaskPushConfig,
  V03TaskStatus,
} from './schemas.js';
import { roleToV03, stateToV03 } from './states.js';
import { DATA_PART_WRAPPED_FLAG } from './to-v1.js';

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A v1.0 part as a v0.3 part. A data value that is not an object is wrapped as `{ value }` and flagged. */
export function partToV03(part: Part): V03Part {
  const meta = part.metadata === undefined ? {} : { metadata: { ...part.metadata } };
  if ('text' in part) return { kind: 'text', text: part.text, ...meta };
  if ('raw' in part || 'url' in part) {
    const named = {
      ...(part.filename === undefined ? {} : { name: part.filename }),
      ...(part.mediaType === undefined ? {} : { mimeType: part.mediaType }),
    };
    const file = 'raw' in part ? { bytes: part.raw, ...named } : { uri: part.url, ...named };
    return { kind: 'file', file, ...meta };
  }
  if (isPlainObject(part.data)) return { kind: 'data', data: part.data, ...meta };
  return {
    kind: 'data',
    data: { value: part.data },
    metadata: { ...part.metadata, [DATA_PART_WRAPPED_FLAG]: true },
  };
}

/** A v1.0 message as a v0.3 message. */
export function messageToV03(m: Message): V03Message {
  const out: V03Message = {
    kind: 'message',
    messageId: m.messageId,
    role: roleToV03(m.role),
    parts: m.parts.map(partToV03),
  };
  if (m.contextId !== undefined) out.contextId = m.contextId;
  if (m.taskId !== undefined) out.taskId = m.taskId;
  if (m.metadata !== undefined) out.metadata = { ...m.metadata };
  if (m.extensions !== undefined) out.extensions = [...m.extensions];
  if (m.referenceTaskIds !== undefined) out.referenceTaskIds = [...m.referenceTaskIds];
  return out;
}

function statusToV03(s: TaskStatus): V03TaskStatus {
  const out: V03TaskStatus = { state: stateToV03(s.state) };
  if (s.message !== undefined) out.message = messageToV03(s.message);
  if (s.timestamp !== undefined) out.timestamp = s.timestamp;
  return out;
}

function artifactToV03(a: Artifact): V03Artifact {
  const out: V03Artifact = { artifactId: a.artifactId, parts: a.parts.map(partToV03) };
  if (a.name !== undefined) out.name = a.name;
  if (a.description !== undefined) out.description = a.description;
  if (a.metadata !== undefined) out.metadata = { ...a.metadata };
  if (a.extensions !== undefined) out.extensions = [...a.extensions];
  return out;
}

/** A v1.0 task as a v0.3 task (`contextId` is required in v0.3: `""` when the task has none). */
export function taskToV03(t: Task): V03Task {
  const out: V03Task = {
    kind: 'task',
    id: t.id,
    contextId: t.contextId ?? '',
    status: statusToV03(t.status),
  };
  if (t.history !== undefined) out.history = t.history.map(messageToV03);
  if (t.artifacts !== undefined) out.artifacts = t.artifacts.map(artifactToV03);
  if (t.metadata !== undefined) out.metadata = { ...t.metadata };
  return out;
}

/** The `message/send` result: the bare task or message. */
export function sendResultToV03(r: { task: Task } | { message: Message }): V03Task | V03Message {
  return 'task' in r ? taskToV03(r.task) : messageToV03(r.message);
}

/**
 * One stream event. A status update is `final` when its state ends the stream (terminal or interrupted), which
 * is when a v1.0 stream ends too.
 */
export function streamEventToV03(e: StreamResponse): V03StreamEvent {
  if ('task' in e) return taskToV03(e.task);
  if ('message' in e) return messageToV03(e.message);
  if ('statusUpdate' in e) {
    const u = e.statusUpdate;
    const state = u.status.state;
    const out: V03StreamEvent = {
      kind: 'status-update',
      taskId: u.taskId,
      contextId: u.contextId,
      status: statusToV03(u.status),
      final: isSettledState(state),
    };
    if (u.metadata !== undefined) out.metadata = { ...u.metadata };
    return out;
  }
  const u = e.artifactUpdate;
  const out: V03StreamEvent = {
    kind: 'artifact-update',
    taskId: u.taskId,
    contextId: u.contextId,
    artifact: artifactToV03(u.artifact),
  };
  if (u.append !== undefined) out.append = u.append;
  if (u.lastChunk !== undefined) out.lastChunk = u.lastChunk;
  if (u.metadata !== undefined) out.metadata = { ...u.metadata };
  return out;
}

/** A flat v1.0 push config as v0.3's `{ taskId, pushNotificationConfig }`. */
export function pushConfigToV03(c: TaskPushNotificationConfig): V03TaskPushConfig {
  const inner: V03PushConfig = { url: c.url };
  if (c.id !== undefined) inner.id = c.id;
  if (c.token !== undefined) inner.token = c.token;
  if (c.authentication !== undefined) {
    inner.authentication = { schemes: [c.authentication.scheme] };
    if (c.authentication.credentials !== undefined)
      inner.authentication.credentials = c.authentication.credentials;
  }
  return { taskId: c.taskId ?? '', pushNotificationConfig: inner };
}
