/**
 * Responses that cost nothing until someone looks inside. Building a web `Response` on Node 20 (undici) costs
 * more than the whole A2A work of a small send, and a node:http server never needs one: it only needs status,
 * headers and body. `respond()` returns an object that *is* a `Response` to every caller (`instanceof`, `status`,
 * `headers`, `text()`, `body` …: the real one is built on first use), while the node adapter reads the parts
 * directly and writes them to the socket.
 */

/** The parts of a response, as the node adapter reads them. */
export interface ResponseParts {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | ReadableStream<Uint8Array> | null;
}

/** Marks a light response; the value is its parts (until the real Response was built and may have been read). */
export const RESPONSE_PARTS = Symbol.for('a2a-once.responseParts');

const REAL = Symbol('a2a-once.realResponse');
const NativeResponse = globalThis.Response;

interface Light {
  [RESPONSE_PARTS]: ResponseParts | undefined;
  [REAL]: Response | undefined;
}

function real(self: Light): Response {
  let r = self[REAL];
  if (!r) {
    const p = self[RESPONSE_PARTS]!;
    r = new NativeResponse(p.body, { status: p.status, headers: p.headers });
    self[REAL] = r;
    // From now on the native object owns the body; the parts must not be written a second time.
    self[RESPONSE_PARTS] = undefined;
  }
  return r;
}

function LightResponse(this: Light, parts: ResponseParts): void {
  this[RESPONSE_PARTS] = parts;
  this[REAL] = undefined;
}
const proto = Object.create(NativeResponse.prototype) as Record<PropertyKey, unknown>;
LightResponse.prototype = proto;
Object.defineProperty(proto, 'status', {
  get(this: Light) {
    return this[RESPONSE_PARTS]?.status ?? real(this).status;
  },
});
Object.defineProperty(proto, 'ok', {
  get(this: Light) {
    const s = this[RESPONSE_PARTS]?.status ?? real(this).status;
    return s >= 200 && s < 300;
  },
});
for (const k of ['headers', 'body', 'bodyUsed', 'redirected', 'statusText', 'type', 'url']) {
  Object.defineProperty(proto, k, {
    get(this: Light) {
      return (real(this) as unknown as Record<string, unknown>)[k];
    },
  });
}
for (const k of ['arrayBuffer', 'blob', 'bytes', 'clone', 'formData', 'json', 'text']) {
  Object.defineProperty(proto, k, {
    value(this: Light, ...args: unknown[]) {
      const r = real(this) as unknown as Record<string, (...a: unknown[]) => unknown>;
      return r[k]!.apply(r, args);
    },
  });
}

/** A response with these parts. */
export function respond(
  status: number,
  body: string | ReadableStream<Uint8Array> | null,
  headers: Record<string, string>,
): Response {
  return new (LightResponse as unknown as new (p: ResponseParts) => Response)({ status, headers, body });
}

/** The parts of a light response that nobody has read yet, else undefined. */
export function responseParts(res: Response): ResponseParts | undefined {
  return (res as unknown as Partial<Light>)[RESPONSE_PARTS];
}
