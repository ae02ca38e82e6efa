/**
 * The well-known types as ProtoJSON writes them (A2A v1.0 §5.5, proto3 JSON mapping): `Struct` is a JSON
 * object, `Value` any JSON value, `ListValue` an array, `Timestamp` an RFC 3339 UTC string, `Empty` `{}`.
 * Each converts between that JSON and the plain object form protobufjs encodes from and decodes to.
 */
import { ProtoCodecError } from './proto-codec-error.js';

/** The full names of the well-known types converted here, with protobufjs's leading dot. */
export const WELL_KNOWN = {
  struct: '.google.protobuf.Struct',
  value: '.google.protobuf.Value',
  listValue: '.google.protobuf.ListValue',
  timestamp: '.google.protobuf.Timestamp',
  empty: '.google.protobuf.Empty',
} as const;

type Obj = Record<string, unknown>;

/** Sets an own property, even one named `__proto__` (JSON may carry that key; plain assignment would not). */
export function setOwn(target: Obj, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function isRecord(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** JSON object → `Struct`. */
export function structToProto(json: unknown, path: string): Obj {
  if (!isRecord(json)) throw new ProtoCodecError(path, 'must be a JSON object');
  const fields: Obj = {};
  for (const [k, v] of Object.entries(json)) {
    if (v !== undefined) setOwn(fields, k, valueToProto(v, `${path}.${k}`));
  }
  return { fields };
}

/** Any JSON value → `Value`. A number must be finite (JSON has no NaN or Infinity). */
export function valueToProto(json: unknown, path: string): Obj {
  if (json === null) return { nullValue: 0 };
  switch (typeof json) {
    case 'string':
      return { stringValue: json };
    case 'boolean':
      return { boolValue: json };
    case 'number':
      if (!Number.isFinite(json)) throw new ProtoCodecError(path, 'must be a finite number');
      return { numberValue: json };
    case 'object':
      return Array.isArray(json)
        ? { listValue: listToProto(json, path) }
        : { structValue: structToProto(json, path) };
    case 'bigint':
    case 'function':
    case 'symbol':
    case 'undefined':
      break;
  }
  throw new ProtoCodecError(path, `cannot hold a ${typeof json}`);
}

/** JSON array → `ListValue`. */
export function listToProto(json: unknown, path: string): Obj {
  if (!Array.isArray(json)) throw new ProtoCodecError(path, 'must be a JSON array');
  return { values: json.map((v: unknown, i) => valueToProto(v === undefined ? null : v, `${path}[${i}]`)) };
}

/** `Struct` → JSON object. */
export function structFromProto(msg: unknown): Obj {
  const out: Obj = {};
  const fields = isRecord(msg) ? msg.fields : undefined;
  if (typeof fields === 'object' && fields !== null)
    for (const [k, v] of Object.entries(fields)) setOwn(out, k, valueFromProto(v));
  return out;
}

/** `Value` → JSON value; a Value with no kind set reads as null. */
export function valueFromProto(msg: unknown): unknown {
  if (!isRecord(msg)) return null;
  switch (msg.kind) {
    case 'stringValue':
      return msg.stringValue;
    case 'numberValue':
      return msg.numberValue;
    case 'boolValue':
      return msg.boolValue;
    case 'structValue':
      return structFromProto(msg.structValue);
    case 'listValue':
      return listFromProto(msg.listValue);
    default:
      return null;
  }
}

/** `ListValue` → JSON array. */
export function listFromProto(msg: unknown): unknown[] {
  const values = isRecord(msg) ? msg.values : undefined;
  return Array.isArray(values) ? values.map(valueFromProto) : [];
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

/** RFC 3339 string (any offset, up to nanoseconds) → `Timestamp`. */
export function timestampToProto(json: unknown, path: string): Obj {
  const m = typeof json === 'string' ? RFC3339.exec(json) : null;
  const ms = m ? Date.parse(`${m[1]}${m[3]}`) : Number.NaN;
  if (!m || Number.isNaN(ms)) throw new ProtoCodecError(path, 'must be an RFC 3339 timestamp');
  const nanos = m[2] === undefined ? 0 : Number(m[2].padEnd(9, '0'));
  return { seconds: ms / 1000, nanos };
}

/**
 * `Timestamp` → RFC 3339 UTC ending in `Z`, with milliseconds (A2A v1.0 §5.5 SHOULD), or with micro- or
 * nanoseconds when the value has them.
 */
export function timestampFromProto(msg: unknown): string {
  const rec = isRecord(msg) ? msg : {};
  const seconds = toNumber(rec.seconds);
  const nanos = toNumber(rec.nanos);
  const iso = new Date(seconds * 1000).toISOString(); // always `.000Z`: whole seconds
  const digits = String(nanos).padStart(9, '0');
  const fraction = nanos % 1e6 === 0 ? digits.slice(0, 3) : nanos % 1e3 === 0 ? digits.slice(0, 6) : digits;
  return `${iso.slice(0, -5)}.${fraction}Z`;
}

/** An int64 as protobufjs decodes it (a number, or a Long when long.js is present) → number. */
export function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'object' && v !== null && 'toNumber' in v) return (v as { toNumber(): number }).toNumber();
  return v === undefined || v === null ? 0 : Number(v);
}
