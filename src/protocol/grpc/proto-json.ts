/**
 * ProtoJSON ⇄ protobuf, by reflection over the loaded `.proto` (ADR 0105): the objects our zod schemas and
 * model use (camelCase keys, enums as names, `bytes` as base64, oneofs as one flat member, well-known types as
 * JSON) go to and come from the binary form. Writing is canonical proto3: a field without presence at its
 * default (`""`, `0`, `false`, the zero enum, an empty list or map) is not written, and is not read back.
 */
import type protobuf from 'protobufjs';
import { ProtoCodecError } from './proto-codec-error.js';
import {
  WELL_KNOWN,
  listFromProto,
  listToProto,
  structFromProto,
  structToProto,
  timestampFromProto,
  timestampToProto,
  toNumber,
  valueFromProto,
  valueToProto,
} from './well-known.js';

type Obj = Record<string, unknown>;

function isRecord(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A field the specification marks REQUIRED (a trailing `// REQUIRED` in the shipped `.proto`, standing in for
 * `google.api.field_behavior`): read back even at its default (`""`, `0`, the zero enum, `[]`), because our
 * model and schemas, like ProtoJSON peers, have it always present (ListTasks' `nextPageToken`, a card's
 * `skills`). Whether such a value is acceptable is then the schema's call, as for JSON.
 */
function isRequired(field: protobuf.Field): boolean {
  return field.comment?.startsWith('REQUIRED') === true;
}

/** A field with presence: a oneof member or a proto3 `optional` (whose synthetic oneof is its `partOf`). */
function hasPresence(field: protobuf.Field): boolean {
  return field.partOf !== null;
}

const SNAKE = /_([a-z0-9])/g;

/** The field a ProtoJSON key names: the camelCase JSON name, or the original snake_case name (A2A v1.0 §5.5). */
function fieldOf(type: protobuf.Type, key: string): protobuf.Field | undefined {
  return (
    type.fields[key] ??
    (key.includes('_') ? type.fields[key.replace(SNAKE, (_, c: string) => c.toUpperCase())] : undefined)
  );
}

/** ProtoJSON → the plain object `Type.fromObject` takes. Unknown keys are ignored (proto3 JSON mapping). */
export function toProtoObject(type: protobuf.Type, json: unknown, path: string): Obj {
  const special = wellKnownToProto(type, json, path);
  if (special !== undefined) return special;
  if (!isRecord(json)) throw new ProtoCodecError(path, `must be an object (${type.name})`);
  const out: Obj = {};
  for (const [key, value] of Object.entries(json)) {
    const field = fieldOf(type, key);
    if (field === undefined || value === undefined) continue;
    // ProtoJSON's null is "absent", except inside a Value (handled by its converter).
    if (value === null && field.resolvedType?.fullName !== WELL_KNOWN.value) continue;
    const at = path === '' ? field.name : `${path}.${field.name}`;
    const converted = fieldToProto(field, value, at);
    if (converted !== undefined) out[field.name] = converted;
  }
  return out;
}

function fieldToProto(field: protobuf.Field, value: unknown, path: string): unknown {
  if (field.map) {
    if (!isRecord(value)) throw new ProtoCodecError(path, 'must be an object (a map)');
    const entries = Object.entries(value).filter(([, v]) => v !== undefined && v !== null);
    if (entries.length === 0) return undefined;
    return Object.fromEntries(entries.map(([k, v]) => [k, singleToProto(field, v, `${path}.${k}`)]));
  }
  if (field.repeated) {
    if (!Array.isArray(value)) throw new ProtoCodecError(path, 'must be an array');
    if (value.length === 0) return undefined;
    return value.map((v: unknown, i) => singleToProto(field, v, `${path}[${i}]`));
  }
  const single = singleToProto(field, value, path);
  if (!hasPresence(field) && isDefault(single)) return undefined;
  return single;
}

function isDefault(v: unknown): boolean {
  return v === '' || v === 0 || v === false || (v instanceof Uint8Array && v.length === 0);
}

function singleToProto(field: protobuf.Field, value: unknown, path: string): unknown {
  const rt = field.resolvedType;
  if (rt !== null && 'fieldsArray' in rt) return toProtoObject(rt, value, path);
  if (rt !== null) return enumToProto(rt, value, path);
  return scalarToProto(field.type, value, path);
}

function enumToProto(e: protobuf.Enum, value: unknown, path: string): number {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  const n = typeof value === 'string' ? e.values[value] : undefined;
  if (n === undefined) throw new ProtoCodecError(path, `must be a ${e.name} name`);
  return n;
}

const INTEGER = /^-?\d+$/;

function scalarToProto(kind: string, value: unknown, path: string): unknown {
  switch (kind) {
    case 'string':
      if (typeof value !== 'string') throw new ProtoCodecError(path, 'must be a string');
      return value;
    case 'bool':
      if (typeof value !== 'boolean') throw new ProtoCodecError(path, 'must be a boolean');
      return value;
    case 'bytes':
      return bytesToProto(value, path);
    case 'double':
    case 'float':
      if (typeof value !== 'number') throw new ProtoCodecError(path, 'must be a number');
      return value;
    default: {
      // The integer kinds; ProtoJSON allows a decimal string too (int64 is written that way).
      const n = typeof value === 'string' && INTEGER.test(value) ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isSafeInteger(n))
        throw new ProtoCodecError(path, 'must be an integer');
      return n;
    }
  }
}

const BASE64 = /^[A-Za-z0-9+/\-_]*={0,2}$/;

/** Base64, the standard alphabet or the URL-safe one (A2A v1.0 §5.5: readers accept either). */
function bytesToProto(value: unknown, path: string): Uint8Array {
  if (typeof value !== 'string' || !BASE64.test(value)) throw new ProtoCodecError(path, 'must be base64');
  return Uint8Array.from(Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64'));
}

function wellKnownToProto(type: protobuf.Type, json: unknown, path: string): Obj | undefined {
  switch (type.fullName) {
    case WELL_KNOWN.struct:
      return structToProto(json, path);
    case WELL_KNOWN.value:
      return valueToProto(json, path);
    case WELL_KNOWN.listValue:
      return listToProto(json, path);
    case WELL_KNOWN.timestamp:
      return timestampToProto(json, path);
    case WELL_KNOWN.empty:
      return {};
    default:
      return undefined;
  }
}

/** A decoded protobufjs message → ProtoJSON. */
export function fromProtoMessage(type: protobuf.Type, msg: unknown): unknown {
  switch (type.fullName) {
    case WELL_KNOWN.struct:
      return structFromProto(msg);
    case WELL_KNOWN.value:
      return valueFromProto(msg);
    case WELL_KNOWN.listValue:
      return listFromProto(msg);
    case WELL_KNOWN.timestamp:
      return timestampFromProto(msg);
    default:
      break;
  }
  const m: Obj = isRecord(msg) ? msg : {};
  const out: Obj = {};
  for (const field of type.fieldsArray) {
    const v = m[field.name];
    const keep = isRequired(field);
    if (field.map) {
      // An empty map is never read back, REQUIRED or not: our model has the OAuth flows' `scopes` optional.
      if (isRecord(v) && Object.keys(v).length > 0)
        out[field.name] = Object.fromEntries(
          Object.entries(v).map(([k, x]) => [k, singleFromProto(field, x)]),
        );
    } else if (field.repeated) {
      if (Array.isArray(v) && v.length > 0)
        out[field.name] = v.map((x: unknown) => singleFromProto(field, x));
      else if (keep) out[field.name] = [];
    } else if (field.resolvedType !== null && 'fieldsArray' in field.resolvedType) {
      if (v !== null && v !== undefined) out[field.name] = singleFromProto(field, v);
    } else if (hasPresence(field) ? Object.hasOwn(m, field.name) : keep || !isDefaultScalar(v)) {
      out[field.name] = singleFromProto(field, v);
    }
  }
  return out;
}

function isDefaultScalar(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (typeof v === 'object' && !(v instanceof Uint8Array)) return toNumber(v) === 0; // a Long
  return isDefault(v);
}

function singleFromProto(field: protobuf.Field, v: unknown): unknown {
  const rt = field.resolvedType;
  if (rt !== null && 'fieldsArray' in rt) return fromProtoMessage(rt, v);
  if (rt !== null) return rt.valuesById[v as number] ?? v; // an enum: its name, or the number of an unknown one
  if (field.type === 'bytes') return Buffer.from(v as Uint8Array).toString('base64');
  if (typeof v === 'object' && v !== null) return toNumber(v); // int64 as a Long
  return v === undefined && field.type === 'string' ? '' : v;
}
