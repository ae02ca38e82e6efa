/**
 * Writes a web `Response` to a node:http `ServerResponse`: straight from its parts when it is one of ours
 * (`respond()`), through its body stream otherwise. Streams (SSE) are written chunk by chunk with back-pressure,
 * and a client that goes away cancels the stream so the handler stops producing.
 */
import type { ServerResponse } from 'node:http';
import { responseParts } from '../http/wire/light-response.js';

async function pump(stream: ReadableStream<Uint8Array>, out: ServerResponse): Promise<void> {
  const reader = stream.getReader();
  let closed = false;
  let wakeDrain: (() => void) | undefined;
  const onClose = () => {
    closed = true;
    wakeDrain?.();
    reader.cancel().catch(() => undefined);
  };
  out.once('close', onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || closed) break;
      if (!out.write(value)) {
        await new Promise<void>((resolve) => {
          wakeDrain = resolve;
          out.once('drain', resolve);
        });
        wakeDrain = undefined;
      }
    }
    if (!closed) out.end();
  } catch {
    out.destroy();
  } finally {
    out.off('close', onClose);
  }
}

/** Writes `res` to `out`. */
export async function writeResponse(res: Response, out: ServerResponse): Promise<void> {
  const parts = responseParts(res);
  if (parts) {
    const { status, headers, body } = parts;
    if (typeof body === 'string') {
      out.writeHead(status, { ...headers, 'Content-Length': String(Buffer.byteLength(body)) });
      out.end(body);
    } else if (body === null) {
      out.writeHead(status, headers);
      out.end();
    } else {
      out.writeHead(status, headers);
      out.flushHeaders();
      await pump(body, out);
    }
    return;
  }
  const headers: Record<string, string | string[]> = {};
  res.headers.forEach((value, key) => {
    if (key === 'set-cookie') headers[key] = res.headers.getSetCookie();
    else headers[key] = value;
  });
  out.writeHead(res.status, headers);
  if (!res.body) {
    out.end();
    return;
  }
  out.flushHeaders();
  await pump(res.body, out);
}
