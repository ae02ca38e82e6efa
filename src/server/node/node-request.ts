/**
 * A web `Request` over a node:http `IncomingMessage`, built lazily. Constructing a real undici Request with a
 * body costs more than a whole small A2A send, and the A2A handler only needs the method, URL, a few headers and
 * the body text. Everything else (`clone()`, `cache`, …) builds the real Request on first use, so user handlers
 * that need the full object still get it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

const NativeRequest = globalThis.Request;

/** Headers read straight from the incoming message until something needs the full Headers object. */
class IncomingHeaders extends Headers {
  #incoming: IncomingMessage | undefined;
  constructor(incoming: IncomingMessage) {
    super();
    this.#incoming = incoming;
  }
  #fill(): void {
    const inc = this.#incoming;
    if (!inc) return;
    this.#incoming = undefined;
    const raw = inc.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) super.append(raw[i]!, raw[i + 1]!);
  }
  override get(name: string): string | null {
    const inc = this.#incoming;
    if (!inc) return super.get(name);
    const v = inc.headers[name.toLowerCase()];
    return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
  }
  override has(name: string): boolean {
    const inc = this.#incoming;
    return inc ? inc.headers[name.toLowerCase()] !== undefined : super.has(name);
  }
  override append(name: string, value: string): void {
    this.#fill();
    super.append(name, value);
  }
  override set(name: string, value: string): void {
    this.#fill();
    super.set(name, value);
  }
  override delete(name: string): void {
    this.#fill();
    super.delete(name);
  }
  override forEach(cb: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    this.#fill();
    super.forEach(cb, thisArg);
  }
  override entries(): HeadersIterator<[string, string]> {
    this.#fill();
    return super.entries();
  }
  override keys(): HeadersIterator<string> {
    this.#fill();
    return super.keys();
  }
  override values(): HeadersIterator<string> {
    this.#fill();
    return super.values();
  }
  override [Symbol.iterator](): HeadersIterator<[string, string]> {
    this.#fill();
    return super[Symbol.iterator]();
  }
  override getSetCookie(): string[] {
    this.#fill();
    return super.getSetCookie();
  }
}

interface State {
  incoming: IncomingMessage;
  out: ServerResponse;
  url: string;
  headers?: Headers;
  controller?: AbortController;
  bodyUsed: boolean;
  body?: ReadableStream<Uint8Array> | null;
  real?: Request;
}

const STATE = Symbol('a2a-once.nodeRequest');
type Self = { [STATE]: State };

function readAll(s: State): Promise<Buffer> {
  if (s.bodyUsed) return Promise.reject(new TypeError('Body has already been read'));
  s.bodyUsed = true;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    s.incoming.on('data', (c: Buffer) => chunks.push(c));
    s.incoming.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    s.incoming.once('error', reject);
  });
}

function signalOf(s: State): AbortSignal {
  if (!s.controller) {
    const ctl = new AbortController();
    s.controller = ctl;
    // The client went away before the response was complete.
    s.out.once('close', () => {
      if (!s.out.writableFinished) ctl.abort();
    });
  }
  return s.controller.signal;
}

function bodyOf(s: State): ReadableStream<Uint8Array> | null {
  if (s.body !== undefined) return s.body;
  const m = s.incoming.method;
  s.body = m === 'GET' || m === 'HEAD' ? null : (Readable.toWeb(s.incoming) as ReadableStream<Uint8Array>);
  return s.body;
}

function realOf(s: State, self: Request): Request {
  if (!s.real) {
    const body = bodyOf(s);
    s.real = new NativeRequest(self.url, {
      method: self.method,
      headers: self.headers,
      signal: signalOf(s),
      ...(body ? { body, duplex: 'half' } : {}),
    });
  }
  return s.real;
}

function NodeRequest(this: Self, state: State): void {
  this[STATE] = state;
}
const proto = Object.create(NativeRequest.prototype) as Record<PropertyKey, unknown>;
NodeRequest.prototype = proto;
const getters: Record<string, (s: State, self: Request) => unknown> = {
  method: (s) => s.incoming.method ?? 'GET',
  url: (s) => s.url,
  headers: (s) => (s.headers ??= new IncomingHeaders(s.incoming)),
  signal: (s) => signalOf(s),
  body: (s) => bodyOf(s),
  bodyUsed: (s) => s.bodyUsed,
};
for (const [k, get] of Object.entries(getters)) {
  Object.defineProperty(proto, k, {
    get(this: Self) {
      return get(this[STATE], this as unknown as Request);
    },
  });
}
for (const k of [
  'cache',
  'credentials',
  'destination',
  'integrity',
  'keepalive',
  'mode',
  'redirect',
  'referrer',
  'referrerPolicy',
]) {
  Object.defineProperty(proto, k, {
    get(this: Self) {
      return (realOf(this[STATE], this as unknown as Request) as unknown as Record<string, unknown>)[k];
    },
  });
}
const bodyReaders: Record<string, (b: Buffer) => unknown> = {
  text: (b) => b.toString('utf8'),
  json: (b) => JSON.parse(b.toString('utf8')) as unknown,
  arrayBuffer: (b) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength),
  bytes: (b) => new Uint8Array(b),
};
for (const [k, read] of Object.entries(bodyReaders)) {
  Object.defineProperty(proto, k, {
    value(this: Self) {
      const s = this[STATE];
      if (s.body !== undefined || s.real) {
        const r = realOf(s, this as unknown as Request) as unknown as Record<string, () => Promise<unknown>>;
        return r[k]!();
      }
      return readAll(s).then(read);
    },
  });
}
for (const k of ['blob', 'formData', 'clone']) {
  Object.defineProperty(proto, k, {
    value(this: Self) {
      const r = realOf(this[STATE], this as unknown as Request) as unknown as Record<string, () => unknown>;
      return r[k]!();
    },
  });
}

/** A Request for an incoming node:http message. */
export function nodeRequest(incoming: IncomingMessage, out: ServerResponse): Request {
  const host = incoming.headers.host ?? 'localhost';
  const scheme = (incoming.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  const url = `${scheme}://${host}${incoming.url ?? '/'}`;
  return new (NodeRequest as unknown as new (s: State) => Request)({ incoming, out, url, bodyUsed: false });
}
