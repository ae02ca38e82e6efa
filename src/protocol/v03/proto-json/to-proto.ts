/**
 * v0.3 JSON results (what `to-v03.ts` writes) as the v0.3 proto-JSON the v0.3 HTTP+JSON binding answers
 * (ADR 0100): `TASK_STATE_*` and `ROLE_*` enums (v0.3's proto spells `TASK_STATE_CANCELLED`), a message's parts
 * as `content`, a status's message as `message`, parts as `{ text }`, `{ file: { fileWithUri | fileWithBytes,
 * mimeType } }` or `{ data: { data } }`, the send answer and each stream event as a one-member object (`task`,
 * `message`, `statusUpdate`, `artifactUpdate`), a push config as `{ name: "tasks/{id}/pushNotificationConfigs/
 * {configId}", pushNotificationConfig }`. v0.3's proto has no part metadata, no file name and no
 * `referenceTaskIds`: they are not written.
 */
import type {
  V03Artifact,
  V03Message,
  V03Part,
  V03StreamEvent,
  V03Task,
  V03TaskPushConfig,
  V03TaskState,
} from '../schemas.js';

type Json = Record<string, unknown>;

const STATES: Readonly<Record<V03TaskState, string>> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  canceled: 'TASK_STATE_CANCELLED',
  failed: 'TASK_STATE_FAILED',
  rejected: 'TASK_STATE_REJECTED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
  unknown: 'TASK_STATE_UNSPECIFIED',
};

/** A v0.3 task state as its proto enum name. */
export function stateToProto(s: V03TaskState): string {
  return STATES[s];
}

function partToProto(p: V03Part): Json {
  if (p.kind === 'text') return { text: p.text };
  if (p.kind === 'file') {
    const f = p.file;
    const file: Json = 'bytes' in f ? { fileWithBytes: f.bytes } : { fileWithUri: f.uri };
    if (f.mimeType !== undefined && f.mimeType !== '') file.mimeType = f.mimeType;
    return { file };
  }
  return { data: { data: p.data } };
}

/** A v0.3 message as proto-JSON. */
export function messageToProto(m: V03Message): Json {
  const out: Json = { messageId: m.messageId, role: m.role === 'user' ? 'ROLE_USER' : 'ROLE_AGENT' };
  if (m.contextId !== undefined && m.contextId !== '') out.contextId = m.contextId;
  if (m.taskId !== undefined && m.taskId !== '') out.taskId = m.taskId;
  out.content = m.parts.map(partToProto);
  if (m.metadata !== undefined) out.metadata = m.metadata;
  if (m.extensions !== undefined && m.extensions.length > 0) out.extensions = m.extensions;
  return out;
}

function statusToProto(s: V03Task['status']): Json {
  const out: Json = { state: stateToProto(s.state) };
  if (s.message !== undefined) out.message = messageToProto(s.message);
  if (s.timestamp !== undefined) out.timestamp = s.timestamp;
  return out;
}

function artifactToProto(a: V03Artifact): Json {
  const out: Json = { artifactId: a.artifactId };
  if (a.name !== undefined && a.name !== '') out.name = a.name;
  if (a.description !== undefined && a.description !== '') out.description = a.description;
  out.parts = a.parts.map(partToProto);
  if (a.metadata !== undefined) out.metadata = a.metadata;
  if (a.extensions !== undefined && a.extensions.length > 0) out.extensions = a.extensions;
  return out;
}

/** A v0.3 task as proto-JSON. */
export function taskToProto(t: V03Task): Json {
  const out: Json = { id: t.id };
  if (t.contextId !== '') out.contextId = t.contextId;
  out.status = statusToProto(t.status);
  if (t.artifacts !== undefined && t.artifacts.length > 0) out.artifacts = t.artifacts.map(artifactToProto);
  if (t.history !== undefined && t.history.length > 0) out.history = t.history.map(messageToProto);
  if (t.metadata !== undefined) out.metadata = t.metadata;
  return out;
}

/** The answer of `message:send`: `{ task }` or `{ message }`. */
export function sendResultToProto(r: V03Task | V03Message): Json {
  return r.kind === 'task' ? { task: taskToProto(r) } : { message: messageToProto(r) };
}

/** One stream event: `{ task }`, `{ message }`, `{ statusUpdate }` or `{ artifactUpdate }`. */
export function streamEventToProto(e: V03StreamEvent): Json {
  if (e.kind === 'task') return { task: taskToProto(e) };
  if (e.kind === 'message') return { message: messageToProto(e) };
  const head: Json = { taskId: e.taskId };
  if (e.contextId !== '') head.contextId = e.contextId;
  if (e.kind === 'status-update') {
    const u: Json = { ...head, status: statusToProto(e.status) };
    if (e.final) u.final = true;
    if (e.metadata !== undefined) u.metadata = e.metadata;
    return { statusUpdate: u };
  }
  const u: Json = { ...head, artifact: artifactToProto(e.artifact) };
  if (e.append === true) u.append = true;
  if (e.lastChunk === true) u.lastChunk = true;
  if (e.metadata !== undefined) u.metadata = e.metadata;
  return { artifactUpdate: u };
}

/** A v0.3 task push config as proto-JSON, named by its resource name. */
export function taskPushConfigToProto(c: V03TaskPushConfig): Json {
  const p = c.pushNotificationConfig;
  const inner: Json = { url: p.url };
  if (p.id !== undefined && p.id !== '') inner.id = p.id;
  if (p.token !== undefined && p.token !== '') inner.token = p.token;
  if (p.authentication !== undefined) inner.authentication = { ...p.authentication };
  return { name: `tasks/${c.taskId}/pushNotificationConfigs/${p.id ?? ''}`, pushNotificationConfig: inner };
}
