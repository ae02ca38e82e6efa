/**
 * Shared HTTP test helpers: JSON-RPC request builders, REST request builders, and an SSE reader that parses
 * frames strictly (one `data:` line of single-line JSON per event, blank-line separated).
 */
import type { z } from 'zod';
import { parseWith } from '../../src/protocol/parse.js';

/** Base URL used for in-process `server.fetch` calls. */
export const BASE = 'http://a2a.test';

/** Headers every well-behaved v1.0 client sends. */
export const V1 = { 'A2A-Version': '1.0' } as const;

let nextId = 1;

/** A JSON-RPC 2.0 POST request to `path` (default `/`). */
export function rpcRequest(
  method: string,
  params?: unknown,
  opts: { id?: string | number | null; headers?: Record<string, string>; base?: string; path?: string } = {},
): Request {
  const id = opts.id === undefined ? nextId++ : opts.id;
  const body: Record<string, unknown> = { jsonrpc: '2.0', id, method };
  if (params !== undefined) body.params = params;
  return new Request(`${opts.base ?? BASE}${opts.path ?? '/'}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...V1, ...opts.headers },
    body: JSON.stringify(body),
  });
}

/** A REST request; `body` is JSON-encoded when given. */
export function restRequest(
  method: string,
  path: string,
  body?: unknown,
  opts: { headers?: Record<string, string>; base?: string } = {},
): Request {
  const headers: Record<string, string> = { ...V1, ...opts.headers };
  if (body !== undefined) headers['Content-Type'] ??= 'application/a2a+json';
  return new Request(`${opts.base ?? BASE}${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

/** A JSON-RPC response envelope as received. */
export interface RpcEnvelope {
  jsonrpc: unknown;
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** Reads a JSON-RPC response body (checks it is JSON). */
export async function rpcJson(res: Response): Promise<RpcEnvelope> {
  const text = await res.text();
  return JSON.parse(text) as RpcEnvelope;
}

/** The ErrorInfo of a JSON-RPC error or REST Status (`data[0]` / `details[0]`). */
export function errorInfo(details: unknown): { '@type'?: unknown; reason?: unknown; domain?: unknown } {
  if (!Array.isArray(details))
    throw new Error(`expected an array of details, got ${JSON.stringify(details)}`);
  const first: unknown = details[0];
  if (typeof first !== 'object' || first === null) throw new Error('expected an ErrorInfo object');
  return first;
}

/** Expects a JSON-RPC error with `code` and ErrorInfo `reason` (and the a2a domain by default). */
export function expectRpcError(
  env: RpcEnvelope,
  code: number,
  reason: string,
  domain = 'a2a-protocol.org',
): void {
  if (!env.error) throw new Error(`expected a JSON-RPC error, got ${JSON.stringify(env)}`);
  if (env.error.code !== code || 'result' in env) {
    throw new Error(`expected error ${code}/${reason}, got ${JSON.stringify(env)}`);
  }
  const info = errorInfo(env.error.data);
  if (
    info['@type'] !== 'type.googleapis.com/google.rpc.ErrorInfo' ||
    info.reason !== reason ||
    info.domain !== domain
  ) {
    throw new Error(`expected ErrorInfo ${reason}@${domain}, got ${JSON.stringify(info)}`);
  }
  if (typeof env.error.message !== 'string' || env.error.message === '')
    throw new Error('empty error message');
}

/** A REST `google.rpc.Status` error body. */
export interface RestStatus {
  error: { code: number; status: string; message: string; details?: unknown[] };
}

/** Reads and checks a REST error response: HTTP status, gRPC status name, ErrorInfo reason. */
export async function expectRestError(
  res: Response,
  httpStatus: number,
  grpcStatus: string,
  reason: string,
  domain = 'a2a-protocol.org',
): Promise<RestStatus> {
  const text = await res.text();
  if (res.status !== httpStatus) throw new Error(`expected HTTP ${httpStatus}, got ${res.status}: ${text}`);
  const body = JSON.parse(text) as RestStatus;
  const e = body.error;
  if (e.code !== httpStatus || e.status !== grpcStatus || typeof e.message !== 'string') {
    throw new Error(`expected Status ${httpStatus}/${grpcStatus}, got ${text}`);
  }
  const info = errorInfo(e.details);
  if (
    info['@type'] !== 'type.googleapis.com/google.rpc.ErrorInfo' ||
    info.reason !== reason ||
    info.domain !== domain
  ) {
    throw new Error(`expected ErrorInfo ${reason}@${domain}, got ${text}`);
  }
  return body;
}

/** Parses `raw` with one of our zod schemas (throws with the offending fields). */
export function parseAs<T>(schema: z.ZodType<T>, raw: unknown, what: string): T {
  return parseWith(schema, raw, what);
}

/** One SSE frame. `data` is the parsed JSON of its single `data:` line. */
export interface SseFrame {
  event?: string;
  /** The frame's `id:` (the task event sequence a2a-once numbers each event with, ADR 0124). */
  id?: string;
  data: unknown;
  raw: string;
}

/**
 * Splits an SSE body into frames, strictly: frames are separated by a blank line, each has exactly one
 * `data:` line holding a whole JSON value, at most one `id:` line, comment frames (`: keep-alive`) are skipped. Throws on anything
 * else, so a framing bug fails the test.
 */
export function parseSseText(text: string): SseFrame[] {
  if (text !== '' && !text.endsWith('\n\n'))
    throw new Error(`SSE body does not end with a blank line: ${text}`);
  const frames: SseFrame[] = [];
  for (const block of text.split('\n\n')) {
    if (block === '') continue;
    const lines = block.split('\n');
    if (lines.every((l) => l.startsWith(':'))) continue;
    const dataLines = lines.filter((l) => l.startsWith('data:'));
    if (dataLines.length !== 1)
      throw new Error(`SSE frame must have exactly one data line: ${JSON.stringify(block)}`);
    let event: string | undefined;
    let id: string | undefined;
    for (const l of lines) {
      if (l.startsWith('data:') || l.startsWith(':')) continue;
      if (l.startsWith('event:')) event = l.slice(6).trim();
      else if (l.startsWith('id:') && id === undefined) id = l.slice(3).trim();
      else throw new Error(`unexpected SSE line ${JSON.stringify(l)}`);
    }
    const payload = dataLines[0]!.slice(5).replace(/^ /, '');
    frames.push({
      ...(event !== undefined ? { event } : {}),
      ...(id !== undefined ? { id } : {}),
      data: JSON.parse(payload) as unknown,
      raw: block,
    });
  }
  return frames;
}

/** Reads a whole SSE response (bounded by `timeoutMs`) and parses its frames. */
export async function readSse(res: Response, timeoutMs = 10_000): Promise<SseFrame[]> {
  const ct = res.headers.get('content-type') ?? '';
  if (!ct.startsWith('text/event-stream')) {
    throw new Error(`expected text/event-stream, got ${ct} (${res.status}): ${await res.text()}`);
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`SSE stream did not end within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return parseSseText(await Promise.race([res.text(), timeout]));
  } finally {
    clearTimeout(timer);
  }
}

/** A user message with one text part (ProtoJSON). */
export function userMsg(
  messageId: string,
  text = 'hello',
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { messageId, role: 'ROLE_USER', parts: [{ text }], ...extra };
}

/** A unique id with a prefix. */
export function uid(prefix = 'm'): string {
  return `${prefix}-${Math.random().toString(36).slice(2, 10)}-${Date.now().toString(36)}`;
}

/** Waits `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `check` until it returns true, or throws after `timeoutMs`. */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(10);
  }
}

/** Reads SSE frames one at a time with timeouts; a timed-out read is kept, so no frame is ever lost. */
export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<string>;
  readonly #queue: SseFrame[] = [];
  #buf = '';
  #done = false;
  #pending: Promise<ReadableStreamReadResult<string>> | undefined;

  constructor(res: Response) {
    if (!res.body) throw new Error('response has no body');
    this.#reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** The next frame, `'end'` when the stream ended, or `'timeout'` if none arrives within `ms`. */
  async next(ms: number): Promise<SseFrame | 'timeout' | 'end'> {
    const deadline = Date.now() + ms;
    for (;;) {
      const queued = this.#queue.shift();
      if (queued) return queued;
      if (this.#done) return 'end';
      this.#pending ??= this.#reader.read();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const t = new Promise<'timeout'>(
        (r) => (timer = setTimeout(() => r('timeout'), Math.max(0, deadline - Date.now()))),
      );
      const r = await Promise.race([this.#pending, t]).finally(() => clearTimeout(timer));
      if (r === 'timeout') return r;
      this.#pending = undefined;
      if (r.done) {
        if (this.#buf !== '') throw new Error(`SSE body ended mid-frame: ${JSON.stringify(this.#buf)}`);
        this.#done = true;
        continue;
      }
      this.#buf += r.value;
      let cut: number;
      while ((cut = this.#buf.indexOf('\n\n')) !== -1) {
        this.#queue.push(...parseSseText(this.#buf.slice(0, cut + 2)));
        this.#buf = this.#buf.slice(cut + 2);
      }
    }
  }

  /** The next frame; throws on end or timeout. */
  async frame(ms = 5000): Promise<SseFrame> {
    const f = await this.next(ms);
    if (typeof f === 'string') throw new Error(`expected an SSE frame, got ${f}`);
    return f;
  }

  /** Stops reading (cancels the body). */
  async close(): Promise<void> {
    await this.#reader.cancel().catch(() => undefined);
  }
}
