/**
 * The HTTP status an error answer actually arrived with, kept beside the error (an `A2AError`'s own `httpStatus`
 * is its type's, from the spec's table, whatever the wire said). The 401 resend of an unkeyed send needs the
 * wire's: only a real 401 says "not applied" (RFC 9110 §15.5.2), while an UNAUTHENTICATED error inside a JSON-RPC
 * 200 envelope says nothing about what ran before it (ADR 0079).
 */
const statuses = new WeakMap<object, number>();

/** Notes the status `err` was answered with, and returns `err`. */
export function answeredWith<E extends object>(err: E, status: number): E {
  statuses.set(err, status);
  return err;
}

/** The HTTP status an error answer arrived with, when a transport noted it. */
export function answeredStatusOf(err: unknown): number | undefined {
  return typeof err === 'object' && err !== null ? statuses.get(err) : undefined;
}
