/**
 * Scalar wire schemas: enums read by name or proto number, int32 read from a number or a decimal string,
 * booleans, timestamps and base64 bytes normalised to their canonical form (A2A v1.0).
 */
import { z } from 'zod';
import { ROLES, TASK_STATES } from '../task-state.js';
import { normalizeTimestamp } from '../timestamp.js';
import type { JsonObject } from '../model.js';
import { describeJson, isPlainRecord } from './lenient.js';

/**
 * An enum read by string name or by proto number (the index in `values`); ProtoJSON readers accept both
 * (A2A v1.0). Unknown names and numbers are errors.
 */
export function wireEnum<const T extends readonly [string, ...string[]]>(values: T) {
  const expected = `expected one of ${values.join(', ')}`;
  return z.preprocess(
    (input) => (typeof input === 'number' && Number.isInteger(input) ? (values[input] ?? input) : input),
    z.enum(values, { error: (issue) => `${expected}, got ${JSON.stringify(issue.input) ?? 'nothing'}` }),
  );
}

/** `lf.a2a.v1.TaskState`, by name or number. `TASK_STATE_UNSPECIFIED` is readable here (A2A v1.0). */
export const TaskStateSchema = wireEnum(TASK_STATES);

/** `lf.a2a.v1.Role`, by name or number. `ROLE_UNSPECIFIED` is readable here; a Message refuses it. */
export const RoleSchema = wireEnum(ROLES);

const INT32_MAX = 2_147_483_647;
const DECIMAL = /^-?\d+$/;

/**
 * An int32 within [min, max]. ProtoJSON also accepts integers written as decimal strings, which is how REST
 * query parameters arrive (A2A v1.0).
 */
export function wireInt(min = -INT32_MAX - 1, max = INT32_MAX) {
  const range = max === INT32_MAX ? `>= ${min}` : `between ${min} and ${max}`;
  return z.preprocess(
    (input) => (typeof input === 'string' && DECIMAL.test(input) ? Number(input) : input),
    z
      .number({ error: (issue) => `expected an integer, got ${describeJson(issue.input)}` })
      .int(`must be an integer ${range}`)
      .min(min, `must be an integer ${range}`)
      .max(max, `must be an integer ${range}`),
  );
}

/** A bool. The strings `"true"`/`"false"` are accepted too, as REST query parameters carry them (A2A v1.0). */
export const wireBool = z.preprocess(
  (input) => (input === 'true' ? true : input === 'false' ? false : input),
  z.boolean({ error: (issue) => `expected a boolean, got ${describeJson(issue.input)}` }),
);

/** A string that must not be empty: identifiers and other REQUIRED strings (A2A v1.0, SPEC §5.7). */
export const nonEmptyString = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'expected a string') })
  .min(1, 'must be a non-empty string');

/**
 * A `google.protobuf.Timestamp`: any RFC 3339 form is read and normalised to ISO-8601 UTC with milliseconds
 * (A2A v1.0: offsets other than Z must not be written, so we convert them).
 */
export const wireTimestamp = z.string().transform((input, ctx) => {
  const normalized = normalizeTimestamp(input);
  if (normalized === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: 'expected an RFC 3339 timestamp such as 2025-01-01T00:00:00.000Z',
    });
    return z.NEVER;
  }
  return normalized;
});

const STANDARD_B64 = /^[A-Za-z0-9+/]*={0,2}$/;
const ANY_B64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * Normalises base64 (standard or URL-safe alphabet, padded or not) to the standard alphabet with padding, the
 * form ProtoJSON writes for `bytes` (A2A v1.0). Returns undefined when the input is not base64.
 */
export function normalizeBase64(input: string): string | undefined {
  // Fast path: already canonical.
  if (input.length % 4 === 0 && STANDARD_B64.test(input)) return input;
  if (!ANY_B64.test(input)) return undefined;
  const bare = input.replace(/=+$/, '').replace(/-/g, '+').replace(/_/g, '/');
  const rest = bare.length % 4;
  // One leftover character cannot encode a byte; padding beyond the group is malformed too.
  if (rest === 1) return undefined;
  const padded = rest === 0 ? bare : bare + '='.repeat(4 - rest);
  if (input.includes('=') && padded.length !== input.length) return undefined;
  return padded;
}

/** `bytes` in JSON: base64 read in either alphabet and normalised to standard with padding. */
export const wireBase64 = z.string().transform((input, ctx) => {
  const normalized = normalizeBase64(input);
  if (normalized === undefined) {
    ctx.addIssue({ code: 'custom', message: 'expected base64 (standard or URL-safe alphabet)' });
    return z.NEVER;
  }
  return normalized;
});

/**
 * A `google.protobuf.Struct`: any JSON object, returned as the very object that was sent. Neither copied nor
 * walked: keys inside free-form values are never renamed, and a large `metadata` costs nothing to read.
 */
export const JsonObjectSchema = z.custom<JsonObject>(isPlainRecord, {
  error: (issue) => `expected an object, got ${describeJson(issue.input)}`,
});

/** A string list (`repeated string`). */
export const stringArray = z.array(z.string());

/**
 * A proto `map<string, V>`. zod's record drops a `__proto__` key without a word (it builds its result by
 * assignment, and assigning `__proto__` sets the prototype), so such a map would lose a member in silence; it is
 * refused instead, naming the key (ADR 0031: bad input gets a clear error and loses nothing).
 */
export function wireMap<V extends z.ZodType>(value: V) {
  return z
    .unknown()
    .superRefine((input, ctx) => {
      if (typeof input === 'object' && input !== null && Object.hasOwn(input, '__proto__')) {
        ctx.addIssue({ code: 'custom', message: 'a map key may not be "__proto__"', path: ['__proto__'] });
      }
    })
    .pipe(z.record(z.string(), value));
}
