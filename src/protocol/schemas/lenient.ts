/**
 * Lenient-reading building blocks shared by every wire schema: snake_case aliases for known fields, `null` read as
 * "absent", and oneof dispatch. ProtoJSON readers accept the proto's snake_case names and treat `null` as the
 * default value of any field except `google.protobuf.Value` (A2A v1.0), so we do too.
 *
 * Cost matters: these run on the server's hot path. An object is copied only when one of its keys needs renaming
 * or dropping; free-form values (`metadata`, `Part.data`, `params`, `header`) are never walked, so keys inside
 * them are never renamed.
 */
import { z } from 'zod';

/** A JSON object as read from the wire (not an array, not null). */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `contextId` → `context_id`, `oauth2MetadataUrl` → `oauth2_metadata_url` (the proto field names). */
export function snakeCaseOf(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/**
 * Builds the pre-parse step of one object schema: renames snake_case spellings of its known `fields` to
 * camelCase and drops known fields whose value is `null` (except those in `keepNull`). Returns the input itself
 * when nothing needs to change. When both spellings are present the camelCase one wins. Unknown keys are left
 * out of a rebuilt object, since the object schema strips them anyway (A2A v1.0: unknown fields are ignored).
 */
export function keyNormalizer(
  fields: readonly string[],
  keepNull: readonly string[] = [],
): (input: unknown) => unknown {
  const known = new Set(fields);
  const aliases = new Map<string, string>();
  for (const field of fields) {
    const snake = snakeCaseOf(field);
    if (snake !== field) aliases.set(snake, field);
  }
  const nullable = new Set(keepNull);
  return (input) => {
    if (!isPlainRecord(input)) return input;
    let dirty = false;
    for (const key in input) {
      if (
        input[key] === null ? !nullable.has(key) && (known.has(key) || aliases.has(key)) : aliases.has(key)
      ) {
        dirty = true;
        break;
      }
    }
    if (!dirty) return input;
    const out: Record<string, unknown> = {};
    for (const key in input) {
      const name = known.has(key) ? key : aliases.get(key);
      if (name === undefined) continue;
      const value = input[key];
      if (value === null && !nullable.has(name)) continue;
      if (name !== key && Object.hasOwn(input, name) && input[name] !== null) continue;
      out[name] = value;
    }
    return out;
  };
}

/**
 * An object schema that reads leniently: snake_case aliases, `null` as absent, unknown keys stripped.
 * The output type is exactly the `z.object(shape)` output, so type ties see the real shape.
 */
export function wireObject<const S extends z.core.$ZodLooseShape>(
  shape: S,
  keepNull: readonly string[] = [],
) {
  return z.preprocess(keyNormalizer(Object.keys(shape), keepNull), z.object(shape));
}

/**
 * Error messages for one parse, used by every entry point: "is required" for a missing field, "expected X, got Y"
 * for a wrong type. Other issues keep the message the schema gave them.
 */
export const WIRE_ERROR_MAP: z.core.$ZodErrorMap = (issue) => {
  if (issue.code !== 'invalid_type') return undefined;
  if (issue.input === undefined) return 'is required';
  const expected = issue.expected === 'nonoptional' ? 'a value' : `${issue.expected}`;
  return `expected ${expected}, got ${describeJson(issue.input)}`;
};

/**
 * `schema.safeParse(input)` with `WIRE_ERROR_MAP` messages. The map is applied only on failure, by parsing a
 * second time: passing per-parse params makes every successful parse several times slower in zod 4, and
 * failures are the rare path. Parsing is deterministic, so the second run finds the same issues.
 */
export function safeParseFast<T>(schema: z.ZodType<T>, input: unknown): z.ZodSafeParseResult<T> {
  const result = schema.safeParse(input);
  return result.success ? result : schema.safeParse(input, { error: WIRE_ERROR_MAP });
}

/** The JSON type of a value, for error messages (never the value itself, which may be large or secret). */
export function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/**
 * A oneof (A2A v1.0: "a oneof appears as exactly one member key"): `branches` maps each member name to the
 * schema that parses the whole object when that member is present. Dispatching on the member present, rather than
 * trying a union's options in turn, costs one parse and reports the errors of the right branch. More than one
 * member, or none, is an error. Members set to `null` count as absent unless listed in `keepNull`.
 */
export function oneOfSchema<const B extends Record<string, z.ZodType>>(
  what: string,
  branches: B,
  keepNull: readonly string[] = [],
) {
  const names = Object.keys(branches);
  const members = new Map<string, string>();
  for (const name of names) {
    members.set(name, name);
    members.set(snakeCaseOf(name), name);
  }
  const nullable = new Set(keepNull);
  const expected = `exactly one of ${names.join(', ')}`;
  return z.unknown().transform((input, ctx): z.output<B[keyof B]> => {
    if (!isPlainRecord(input)) {
      ctx.addIssue({ code: 'custom', message: `expected ${what} object, got ${describeJson(input)}` });
      return z.NEVER;
    }
    const found: string[] = [];
    for (const key in input) {
      const name = members.get(key);
      const value = input[key];
      if (name === undefined || value === undefined || (value === null && !nullable.has(name))) continue;
      if (!found.includes(name)) found.push(name);
    }
    const member = found.length === 1 ? found[0] : undefined;
    const branch = member === undefined ? undefined : branches[member];
    if (branch === undefined) {
      const got = found.length === 0 ? 'none' : found.join(', ');
      ctx.addIssue({ code: 'custom', message: `${what} must have ${expected} (found ${got})` });
      return z.NEVER;
    }
    const result = safeParseFast(branch, input);
    if (!result.success) {
      for (const issue of result.error.issues)
        ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
      return z.NEVER;
    }
    // The branch for `member` was chosen from `branches`, so its output is one of the members' outputs.
    return result.data as z.output<B[keyof B]>;
  });
}
