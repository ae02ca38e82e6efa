/**
 * Minimal JSON-RPC and SSE helpers for process-level tests (no client library, so a client bug cannot hide a
 * server bug).
 */
import type { Message, StreamResponse, Task } from '../../src/protocol/model.js';

/** A JSON-RPC SendMessage; returns the parsed response body. */
export async function rpc(
  url: string,
  method: string,
  params: unknown,
  signal?: AbortSignal,
): Promise<unknown> {
  const res = await fetch(`${url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    ...(signal ? { signal } : {}),
  });
  return res.json();
}

/** SendMessage and return the task (throws on an error answer). */
export async function sendForTask(url: string, message: Message, config?: object): Promise<Task> {
  const body = (await rpc(url, 'SendMessage', { message, ...(config ? { configuration: config } : {}) })) as {
    result?: { task?: Task };
    error?: unknown;
  };
  if (!body.result?.task) throw new Error(`no task in answer: ${JSON.stringify(body)}`);
  return body.result.task;
}

/** Opens a JSON-RPC stream and yields its results as they arrive. */
export async function* rpcStream(
  url: string,
  method: string,
  params: unknown,
  signal?: AbortSignal,
): AsyncGenerator<StreamResponse> {
  const res = await fetch(`${url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', accept: 'text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    ...(signal ? { signal } : {}),
  });
  if (!res.body) throw new Error('no body');
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true });
    let i: number;
    while ((i = buf.indexOf('\n\n')) !== -1) {
      const frame = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const data = frame
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      if (data === '') continue;
      const msg = JSON.parse(data) as { result?: StreamResponse; error?: unknown };
      if (!msg.result) throw new Error(`stream error: ${JSON.stringify(msg.error)}`);
      yield msg.result;
    }
  }
}

/** A user message. */
export function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra };
}
