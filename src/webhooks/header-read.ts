/**
 * Reading a delivery's headers from whatever the framework hands over: a Fetch `Headers`, or a plain record such
 * as node's `IncomingHttpHeaders` (lower-case names, repeated headers as arrays) or a hand-built one (any case).
 */

/** Headers as a Fetch `Headers` or a record of name to value(s). */
export type HeadersInput = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/** The value of header `name` (lower case), repeated values joined by `separator`; undefined when absent. */
export function headerOf(headers: HeadersInput, name: string, separator = ', '): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  let value = headers[name];
  if (value === undefined) {
    // A hand-built record may spell the name in any case; node's are already lower case, so this is rare.
    for (const [key, v] of Object.entries(headers)) {
      if (key.toLowerCase() === name) {
        value = v;
        break;
      }
    }
  }
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value.join(separator);
}
