/**
 * v0.3 proto-JSON request bodies (what the v0.3 HTTP+JSON binding carries: `@a2a-js/sdk`'s LegacyRestTransport
 * writes them) into the v0.3 JSON-RPC params the v0.3 translations read (`to-v1.ts`), so a v0.3 REST request
 * meets the same validation and the same v1.0 parser as a v0.3 JSON-RPC request (ADR 0100). Proto-JSON names:
 * a message's parts are `content`, a role is `ROLE_USER`, a part is `{ text }`, `{ file: { fileWithUri |
 * fileWithBytes, mimeType } }` or `{ data: { data } }`, a send's push config is `configuration.pushNotification`,
 * and an absent `blocking` in a present configuration is proto's `false`. The lower-snake spellings proto-JSON
 * readers accept are read too. A body of the wrong shape is an InvalidParamsError naming the field.
 */
import { InvalidParamsError } from '../../errors.js';

type Json = Record<string, unknown>;

function bad(field: string, what: string): never {
  throw new InvalidParamsError({
    message: `Invalid v0.3 request: ${field} ${what}`,
    metadata: { fields: field },
  });
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `obj[camel]`, else `obj[snake]`. */
function read(obj: Json, camel: string, snake?: string): unknown {
  if (obj[camel] !== undefined) return obj[camel];
  return snake === undefined ? undefined : obj[snake];
}

function optObject(v: unknown, field: string): Json | undefined {
  if (v === undefined || v === null) return undefined;
  return isObject(v) ? v : bad(field, 'must be an object');
}

function optString(v: unknown, field: string): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  return typeof v === 'string' ? v : bad(field, 'must be a string');
}

const ROLES: Readonly<Record<string, string>> = { ROLE_USER: 'user', ROLE_AGENT: 'agent' };

function partFromProto(p: unknown, field: string): Json {
  if (!isObject(p)) return bad(field, 'must be an object');
  if (p.text !== undefined) {
    if (typeof p.text !== 'string') return bad(`${field}.text`, 'must be a string');
    return { kind: 'text', text: p.text };
  }
  if (p.file !== undefined) {
    const f = optObject(p.file, `${field}.file`) ?? {};
    const uri = optString(read(f, 'fileWithUri', 'file_with_uri'), `${field}.file.fileWithUri`);
    const bytes = optString(read(f, 'fileWithBytes', 'file_with_bytes'), `${field}.file.fileWithBytes`);
    const mimeType = optString(read(f, 'mimeType', 'mime_type'), `${field}.file.mimeType`);
    const name = optString(f.name, `${field}.file.name`);
    const named = {
      ...(mimeType === undefined ? {} : { mimeType }),
      ...(name === undefined ? {} : { name }),
    };
    if (uri !== undefined) return { kind: 'file', file: { uri, ...named } };
    if (bytes !== undefined) return { kind: 'file', file: { bytes, ...named } };
    return bad(`${field}.file`, 'must hold fileWithUri or fileWithBytes');
  }
  if (p.data !== undefined) {
    const d = optObject(p.data, `${field}.data`) ?? {};
    return { kind: 'data', data: optObject(d.data, `${field}.data.data`) ?? {} };
  }
  return bad(field, 'must hold text, file or data');
}

/** A proto-JSON v0.3 message as a v0.3 JSON message. */
export function messageFromProto(m: unknown, field = 'message'): Json {
  if (!isObject(m)) return bad(field, 'is required and must be an object');
  const role = m.role;
  const parts = read(m, 'content') ?? m.parts;
  if (parts !== undefined && !Array.isArray(parts)) bad(`${field}.content`, 'must be a list');
  const out: Json = {
    kind: 'message',
    messageId: read(m, 'messageId', 'message_id'),
    role: typeof role === 'string' && Object.hasOwn(ROLES, role) ? ROLES[role] : role,
    parts: ((parts as unknown[] | undefined) ?? []).map((p, i) => partFromProto(p, `${field}.content[${i}]`)),
  };
  const contextId = optString(read(m, 'contextId', 'context_id'), `${field}.contextId`);
  const taskId = optString(read(m, 'taskId', 'task_id'), `${field}.taskId`);
  if (contextId !== undefined) out.contextId = contextId;
  if (taskId !== undefined) out.taskId = taskId;
  const metadata = optObject(m.metadata, `${field}.metadata`);
  if (metadata !== undefined) out.metadata = metadata;
  if (Array.isArray(m.extensions) && m.extensions.length > 0) out.extensions = m.extensions;
  return out;
}

/** A proto-JSON v0.3 push config (`PushNotificationConfig`) as the v0.3 JSON one. */
export function pushConfigFromProto(c: unknown, field: string): Json {
  if (!isObject(c)) return bad(field, 'is required and must be an object');
  const out: Json = { url: c.url };
  const id = optString(c.id, `${field}.id`);
  const token = optString(c.token, `${field}.token`);
  if (id !== undefined) out.id = id;
  if (token !== undefined) out.token = token;
  const auth = optObject(c.authentication, `${field}.authentication`);
  if (auth !== undefined) {
    const credentials = optString(auth.credentials, `${field}.authentication.credentials`);
    out.authentication = { schemes: auth.schemes, ...(credentials === undefined ? {} : { credentials }) };
  }
  return out;
}

/** A proto-JSON v0.3 `SendMessageRequest` body as v0.3 `MessageSendParams`. */
export function sendRequestFromProto(body: Json): Json {
  const out: Json = { message: messageFromProto(read(body, 'message') ?? body.request) };
  const c = optObject(body.configuration, 'configuration');
  if (c !== undefined) {
    const conf: Json = { blocking: c.blocking === true };
    const modes = read(c, 'acceptedOutputModes', 'accepted_output_modes');
    if (Array.isArray(modes) && modes.length > 0) conf.acceptedOutputModes = modes;
    const history = read(c, 'historyLength', 'history_length');
    if (history !== undefined && history !== 0) conf.historyLength = history;
    const push = read(c, 'pushNotification', 'push_notification');
    if (push !== undefined && push !== null)
      conf.pushNotificationConfig = pushConfigFromProto(push, 'configuration.pushNotification');
    out.configuration = conf;
  }
  const metadata = optObject(body.metadata, 'metadata');
  if (metadata !== undefined) out.metadata = metadata;
  return out;
}

/**
 * A proto-JSON v0.3 `TaskPushNotificationConfig` body (`{ name, pushNotificationConfig }`, or the create
 * request's `{ config: { pushNotificationConfig } }`) for the task of the path, as v0.3 JSON params.
 */
export function taskPushConfigFromProto(body: Json, taskId: string): Json {
  const wrapped = optObject(body.config, 'config');
  const inner = read(wrapped ?? body, 'pushNotificationConfig', 'push_notification_config');
  return { taskId, pushNotificationConfig: pushConfigFromProto(inner, 'pushNotificationConfig') };
}
