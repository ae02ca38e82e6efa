/**
 * The message digest `D` of docs/semantics.md §2: a retry must resend the identical message, so a held key with
 * the same messageId but a different digest is a conflict, never a replay of someone else's result.
 *
 * `canonicalJson` is RFC 8785 (JCS) style. `messageDigest` serialises the message straight into the hash
 * input, leaving the per-attempt fields out while it writes (no clone of the message: it runs for every
 * keyed send, docs/semantics.md §2).
 */
import { sha256Hex } from './sha256.js';
import type { Message } from '../protocol/model.js';
import { IDEMPOTENCY_EXTENSION_URI, IDEMPOTENCY_METADATA_KEY } from './constants.js';

/**
 * Nesting deeper than this is refused with a `TypeError` rather than overflowing the stack; it also turns a
 * cyclic value into a clean error. JSON read off the wire cannot be cyclic, and a legitimate message is far
 * shallower.
 */
const MAX_DEPTH = 1000;

/** Applies `toJSON` and unwraps boxed primitives, the two steps `JSON.stringify` takes before serialising. */
function resolve(value: object, key: string | number): unknown {
  const toJSON: unknown = (value as { toJSON?: unknown }).toJSON;
  let out: unknown =
    typeof toJSON === 'function' ? (toJSON as (k: string) => unknown).call(value, String(key)) : value;
  if (typeof out === 'object' && out !== null) {
    if (out instanceof Number) out = Number(out);
    else if (out instanceof String) out = String(out);
    else if (out instanceof Boolean) out = out.valueOf();
  }
  return out;
}

/** Serialises one value; `undefined` for a value JSON has no form for (undefined, function, symbol). */
function write(input: unknown, depth: number, key: string | number): string | undefined {
  const value = typeof input === 'object' && input !== null ? resolve(input, key) : input;
  switch (typeof value) {
    case 'string':
      // JCS string escaping is the ECMAScript JSON.stringify escaping (RFC 8785 §3.2.2.2).
      return JSON.stringify(value);
    case 'number':
      // JCS numbers are ECMAScript Number::toString (RFC 8785 §3.2.2.3); non-finite becomes null as in JSON.stringify.
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      throw new TypeError('canonicalJson: a BigInt has no JSON form');
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'object':
      if (value === null) return 'null';
      if (depth >= MAX_DEPTH)
        throw new TypeError('canonicalJson: the value is nested too deeply or is cyclic');
      return Array.isArray(value) ? writeArray(value, depth + 1) : writeObject(value, depth + 1, undefined);
  }
}

function writeArray(items: readonly unknown[], depth: number): string {
  let out = '[';
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out += ',';
    out += write(items[i], depth, i) ?? 'null';
  }
  return out + ']';
}

/** Members in UTF-16 code-unit order (the default sort, RFC 8785 §3.2.3), `undefined` members left out. */
function writeObjectBody(object: object, depth: number, skip: string | undefined): string {
  const record = object as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = '';
  for (const k of keys) {
    if (k === skip) continue;
    const member = write(record[k], depth, k);
    if (member === undefined) continue;
    out += (out === '' ? '' : ',') + JSON.stringify(k) + ':' + member;
  }
  return out;
}

function writeObject(object: object, depth: number, skip: string | undefined): string {
  return '{' + writeObjectBody(object, depth, skip) + '}';
}

/**
 * Canonical JSON of a value, RFC 8785 (JCS) style: object members sorted by UTF-16 code units, no whitespace,
 * strings and finite numbers exactly as `JSON.stringify` writes them, `undefined` members left out. Otherwise it
 * follows `JSON.stringify` (`toJSON`, boxed primitives, non-finite numbers as `null`, `undefined` in arrays as
 * `null`), so `canonicalJson(v) === canonicalJson(JSON.parse(JSON.stringify(v)))`: a value digests the same
 * before and after a trip over the wire.
 *
 * @throws {TypeError} for a top-level value without a JSON form (undefined, a function, a symbol), a BigInt, or
 *   nesting deeper than 1000 levels (including a cycle).
 * @example canonicalJson({ b: 1, a: [true, 'x'] }) // '{"a":[true,"x"],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  const out = write(value, 0, '');
  if (out === undefined) throw new TypeError('canonicalJson: the value has no JSON form');
  return out;
}

/**
 * Proto3 treats an unset field, `null`, `''`, `[]` and an empty message alike, and the bindings differ in which
 * they produce (gRPC cannot tell them apart), so at the Message and Part level all of them are "absent".
 */
function isDefault(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

/** The oneof members of a Part: their presence is the part's kind, so an empty `text` is still kept. */
const PART_CONTENT = new Set(['text', 'raw', 'url', 'data']);

function writePart(part: unknown, depth: number, index: number): string {
  if (typeof part !== 'object' || part === null || Array.isArray(part))
    return write(part, depth, index) ?? 'null';
  const record = part as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = '';
  for (const k of keys) {
    const value = record[k];
    if (PART_CONTENT.has(k) ? value === undefined : isDefault(value)) continue;
    const member = write(value, depth + 1, k);
    if (member === undefined) continue;
    out += (out === '' ? '' : ',') + JSON.stringify(k) + ':' + member;
  }
  return '{' + out + '}';
}

/** One top-level member of the digested message, or `undefined` when it is volatile or default-valued. */
function writeMessageField(k: string, value: unknown): string | undefined {
  if (isDefault(value)) return undefined;
  switch (k) {
    case 'metadata': {
      if (typeof value !== 'object' || Array.isArray(value)) break;
      // The key's own entry is per-attempt (docs/semantics.md §2); metadata left empty by its removal is absent.
      const body = writeObjectBody(value as object, 2, IDEMPOTENCY_METADATA_KEY);
      return body === '' ? undefined : '{' + body + '}';
    }
    case 'extensions': {
      if (!Array.isArray(value)) break;
      // Declaring the URI is per-attempt too: a key is honoured with or without it (docs/semantics.md §1).
      let out = '';
      for (let i = 0; i < value.length; i++) {
        const uri: unknown = value[i];
        if (uri === IDEMPOTENCY_EXTENSION_URI) continue;
        out += (out === '' ? '' : ',') + (write(uri, 2, i) ?? 'null');
      }
      return out === '' ? undefined : '[' + out + ']';
    }
    case 'parts': {
      if (!Array.isArray(value)) break;
      let out = '';
      for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + writePart(value[i], 2, i);
      return '[' + out + ']';
    }
    case 'role':
      // ROLE_UNSPECIFIED is the proto default, which ProtoJSON omits.
      if (value === 'ROLE_UNSPECIFIED') return undefined;
      break;
  }
  return write(value, 1, k);
}

/**
 * The message digest `D` (docs/semantics.md §2): lowercase hex SHA-256 of the canonical JSON of `message` without
 * its per-attempt fields — the key's metadata entry and the extension URI — and with default-valued fields
 * (absent, `null`, `''`, `[]`, `{}`, `ROLE_UNSPECIFIED`; metadata or extensions left empty by the removal)
 * treated as absent at the Message and Part level. Free-form values (metadata values, `data`) are digested as
 * they are.
 *
 * Stable under member order and under adding or removing the key and URI; any real change (text, part order,
 * messageId, contextId, taskId, role, other metadata, referenceTaskIds, other extensions) changes it.
 * Stores persist it next to a key, so its definition is part of the stored format.
 *
 * @throws {TypeError} as `canonicalJson` does. The server refuses such a message before any claim (ADR 0031),
 *   so a deferred digest cannot fail after its agent ran.
 */
export function messageDigest(message: Message): string {
  const record = message as unknown as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let json = '';
  for (const k of keys) {
    const member = writeMessageField(k, record[k]);
    if (member === undefined) continue;
    json += (json === '' ? '' : ',') + JSON.stringify(k) + ':' + member;
  }
  return sha256Hex('{' + json + '}');
}
