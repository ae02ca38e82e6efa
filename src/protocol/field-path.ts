/** Field paths as errors name them (A2A v1.0 `google.rpc.BadRequest.FieldViolation.field`). */

/** Renders a path: `['message', 'parts', 0, 'text']` → `message.parts[0].text`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? String(segment) : `.${String(segment)}`;
  }
  return out;
}
