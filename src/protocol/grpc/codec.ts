/**
 * Binary protobuf ⇄ ProtoJSON for every message of `lf.a2a.v1` (ADR 0105). What a gRPC edge decodes is the
 * very object the JSON-RPC binding reads from its `params`, so both go through the same validation; what it
 * encodes is the very object the other bindings serialise as JSON.
 */
import type protobuf from 'protobufjs';
import { ProtoCodecError } from './proto-codec-error.js';
import { fromProtoMessage, toProtoObject } from './proto-json.js';
import { A2A_PROTO_PACKAGE, protoType } from './proto-root.js';

/** A message of the A2A package, by its short name (`Task`, `SendMessageRequest`, …). */
export type A2AProtoMessageName =
  | 'SendMessageRequest'
  | 'SendMessageResponse'
  | 'StreamResponse'
  | 'GetTaskRequest'
  | 'ListTasksRequest'
  | 'ListTasksResponse'
  | 'CancelTaskRequest'
  | 'SubscribeToTaskRequest'
  | 'TaskPushNotificationConfig'
  | 'GetTaskPushNotificationConfigRequest'
  | 'ListTaskPushNotificationConfigsRequest'
  | 'ListTaskPushNotificationConfigsResponse'
  | 'DeleteTaskPushNotificationConfigRequest'
  | 'GetExtendedAgentCardRequest'
  | 'Task'
  | 'Message'
  | 'AgentCard';

const cache = new Map<string, protobuf.Type>();

function typeOf(name: string): protobuf.Type {
  const full = name.includes('.') ? name : `${A2A_PROTO_PACKAGE}.${name}`;
  let t = cache.get(full);
  if (t === undefined) {
    t = protoType(full);
    cache.set(full, t);
  }
  return t;
}

/**
 * Encodes a ProtoJSON value as the binary form of `typeName` (`Task` or `lf.a2a.v1.Task`, or a google type).
 * Throws ProtoCodecError naming the field that cannot be written (a wrong type, an unknown enum name, a
 * timestamp that is not RFC 3339, a non-finite number in a Struct).
 */
export function encodeProto(typeName: string, json: unknown): Uint8Array {
  const type = typeOf(typeName);
  const obj = toProtoObject(type, json, '');
  // The converted object is already in protobufjs's runtime form (enum numbers, Uint8Array bytes), so it is
  // encoded as is: `fromObject` would copy maps through plain assignment and drop a `__proto__` key.
  return type.encode(obj).finish();
}

/**
 * Decodes the binary form of `typeName` into ProtoJSON. Throws ProtoCodecError when the bytes are not a
 * message of that type.
 */
export function decodeProto(typeName: string, bytes: Uint8Array): unknown {
  const type = typeOf(typeName);
  let msg: protobuf.Message;
  try {
    msg = type.decode(bytes);
  } catch (err) {
    throw new ProtoCodecError(
      '',
      `not a valid ${type.name} message (${err instanceof Error ? err.message : String(err)})`,
    );
  }
  return fromProtoMessage(type, msg);
}

/** ProtoJSON → binary → ProtoJSON: what a value looks like after a trip over gRPC (canonical proto3). */
export function protoRoundTrip(typeName: string, json: unknown): unknown {
  return decodeProto(typeName, encodeProto(typeName, json));
}
