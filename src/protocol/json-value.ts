/**
 * Whether a value given in code is plain JSON data: what JSON.parse could have produced, nested no deeper than
 * the wire allows. A value read off the wire always is (the body's nesting is checked before it is parsed, see
 * `json-depth.ts`); a value handed to the in-process API may hold a BigInt, a cycle, a Date or a getter that
 * throws, and the digest, the stores and the response writers would each fail on it at a different, later time
 * (docs/semantics.md §2 "Input refused at the door", ADR 0031).
 */

/** Where a value stops being JSON, and why. */
export interface NonJsonValue {
  /** Path from the checked value: member names and array indexes. Empty for the value itself. */
  readonly path: readonly (string | number)[];
  readonly problem: string;
}

/**
 * The first place `value` is not plain JSON data, or `undefined` when it all is. Plain JSON data is a string, a
 * finite number, a boolean, null, an array, or an object whose prototype is `Object.prototype` or null, with
 * members of the same kinds; `undefined` members are allowed (JSON leaves them out). A container counts one
 * level, as in `jsonDepth`: containers nested deeper than `maxDepth` are refused, which also catches cycles.
 */
export function findNonJson(value: unknown, maxDepth: number): NonJsonValue | undefined {
  try {
    return check(value, 0, maxDepth);
  } catch (err) {
    // A getter or a proxy trap threw while we read the value: it cannot be serialised either.
    return { path: [], problem: `cannot be read (${err instanceof Error ? err.message : String(err)})` };
  }
}

/** The problem with `v` (a value `depth` containers down), with its path relative to `v`. */
function check(v: unknown, depth: number, max: number): NonJsonValue | undefined {
  switch (typeof v) {
    case 'string':
    case 'boolean':
    case 'undefined':
      return undefined;
    case 'number':
      return Number.isFinite(v) ? undefined : here(`${String(v)} has no JSON form`);
    case 'bigint':
      return here('a BigInt has no JSON form');
    case 'function':
    case 'symbol':
      return here(`a ${typeof v} is not JSON data`);
    case 'object':
      break;
  }
  if (v === null) return undefined;
  if (depth >= max) return here(`nested deeper than ${max} levels (or cyclic)`);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const bad = check(v[i], depth + 1, max);
      if (bad) return under(i, bad);
    }
    return undefined;
  }
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) {
    const name = (v as { constructor?: { name?: unknown } }).constructor?.name;
    return here(
      `${typeof name === 'string' && name !== '' ? `a ${name}` : 'this object'} is not a plain JSON object`,
    );
  }
  const record = v as Record<string, unknown>;
  for (const k of Object.keys(record)) {
    const bad = check(record[k], depth + 1, max);
    if (bad) return under(k, bad);
  }
  return undefined;
}

function here(problem: string): NonJsonValue {
  return { path: [], problem };
}

function under(segment: string | number, inner: NonJsonValue): NonJsonValue {
  return { path: [segment, ...inner.path], problem: inner.problem };
}
