/**
 * Text every task store can hold (docs/semantics.md §2 "Input refused at the door", ADR 0059). Two things a JSON
 * string may carry have no place in a store's text column: U+0000, which PostgreSQL's `text` refuses outright,
 * and an unpaired UTF-16 surrogate, which UTF-8 cannot encode at all (the PostgreSQL driver and SQLite write
 * U+FFFD in its place, so two different ids would become one). Free-form content (a text part, metadata values,
 * a part's `data`) is stored inside escaped JSON and keeps them; names are stored as they are, so names must not.
 * The names are the ids, the tenant, the ListTasks filters and the keys of metadata.
 */
import { InvalidParamsError } from './errors.js';
import { MAX_JSON_DEPTH } from './json-depth.js';
import type { Message } from './model.js';
import { formatPath } from './field-path.js';

/** `String.prototype.isWellFormed` (Node 20, ES2024; the compile target's lib is older). */
type WellFormedCheck = { isWellFormed(): boolean };

/**
 * Why `text` cannot be stored as a name, or `undefined` when it can. The test is two native scans (`includes`,
 * `isWellFormed`): every name of every request goes through it, and a regular expression costing several times
 * as much showed in a send's budget.
 */
export function unstorableTextProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain U+0000 (no task store can hold it)';
  if (!(text as unknown as WellFormedCheck).isWellFormed())
    return 'must not contain an unpaired UTF-16 surrogate (UTF-8 cannot encode it)';
  return undefined;
}

/** A name that cannot be stored: where it is in the request, and why. */
export interface UnstorableText {
  /** Dotted path as in field violations (`message.contextId`, `message.metadata.outer` for a key in it). */
  readonly field: string;
  readonly problem: string;
}

/**
 * The first object in `value` (metadata: any JSON) with a key that cannot be stored, as the path of that object
 * under `path`. Nesting past the wire's limit is not walked: the admission check refuses it on its own.
 */
export function findUnstorableKey(
  value: unknown,
  path: readonly (string | number)[],
): UnstorableText | undefined {
  // Most requests carry no metadata, or flat metadata: no path copy until there is an object to walk.
  if (typeof value !== 'object' || value === null) return undefined;
  return keyIn(value, [...path], 0);
}

function keyIn(value: unknown, path: (string | number)[], depth: number): UnstorableText | undefined {
  if (typeof value !== 'object' || value === null || depth > MAX_JSON_DEPTH) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      const bad = keyIn(value[i], path, depth + 1);
      path.pop();
      if (bad) return bad;
    }
    return undefined;
  }
  const record = value as Record<string, unknown>;
  for (const k of Object.keys(record)) {
    const problem = unstorableTextProblem(k);
    if (problem !== undefined) return { field: formatPath(path), problem: `a key ${problem}` };
    path.push(k);
    const bad = keyIn(record[k], path, depth + 1);
    path.pop();
    if (bad) return bad;
  }
  return undefined;
}

/** The names of a request, whichever operation: ids, the tenant, the ListTasks filters. */
const NAME_FIELDS = ['tenant', 'id', 'taskId', 'contextId', 'pageToken'] as const;

function nameIn(record: Record<string, unknown>, prefix: string): UnstorableText | undefined {
  for (const name of NAME_FIELDS) {
    const v = record[name];
    if (typeof v !== 'string') continue;
    const problem = unstorableTextProblem(v);
    if (problem !== undefined) return { field: prefix + name, problem };
  }
  return undefined;
}

/**
 * The first name of a request's params that cannot be stored, `message` left out (admission checks the message,
 * for in-process callers too): the top-level ids, tenant and filters, the keys of `metadata`, and the ids of a
 * push config sent inline with a send.
 */
export function findUnstorableParam(params: Record<string, unknown>): UnstorableText | undefined {
  const bad = nameIn(params, '') ?? findUnstorableKey(params.metadata, ['metadata']);
  if (bad) return bad;
  const config = params.configuration;
  if (typeof config !== 'object' || config === null) return undefined;
  const push = (config as Record<string, unknown>).taskPushNotificationConfig;
  if (typeof push !== 'object' || push === null) return undefined;
  return nameIn(push as Record<string, unknown>, 'configuration.taskPushNotificationConfig.');
}

/** The first name of `message` that cannot be stored: its ids, referenced task ids, and metadata keys. */
export function findUnstorableInMessage(message: Message, field: string): UnstorableText | undefined {
  for (const name of ['messageId', 'contextId', 'taskId'] as const) {
    const v = message[name];
    if (typeof v !== 'string') continue;
    const problem = unstorableTextProblem(v);
    if (problem !== undefined) return { field: `${field}.${name}`, problem };
  }
  const refs = message.referenceTaskIds;
  if (Array.isArray(refs)) {
    for (let i = 0; i < refs.length; i++) {
      const ref = refs[i];
      const problem = typeof ref === 'string' ? unstorableTextProblem(ref) : undefined;
      if (problem !== undefined) return { field: `${field}.referenceTaskIds[${i}]`, problem };
    }
  }
  const bad = findUnstorableKey(message.metadata, [field, 'metadata']);
  if (bad) return bad;
  const parts = message.parts as readonly unknown[] | undefined;
  if (!Array.isArray(parts)) return undefined;
  for (let i = 0; i < parts.length; i++) {
    const part: unknown = parts[i];
    if (typeof part !== 'object' || part === null) continue;
    const found = findUnstorableKey((part as { metadata?: unknown }).metadata, [
      field,
      'parts',
      i,
      'metadata',
    ]);
    if (found) return found;
  }
  return undefined;
}

/** The refusal of an unstorable name: -32602 / 400 INVALID_PARAMS naming the field, as any invalid field. */
export function unstorableTextError(bad: UnstorableText): InvalidParamsError {
  return new InvalidParamsError({
    message: `Invalid parameters: ${bad.field}: ${bad.problem}`,
    metadata: { fields: bad.field },
  });
}
