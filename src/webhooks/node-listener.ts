/**
 * The receiver on node:http, and so on Express (whose `req`/`res` are node's): `app.post(path,
 * nodeWebhookListener(receiver))`. The signature covers the exact bytes sent, so the body must reach us raw: the
 * listener reads the request stream itself, or takes `req.body` when a raw or text parser already read it
 * (`express.raw({ type: '*\/*' })`, `express.text({ type: '*\/*' })`). A body already parsed into an object (by
 * `express.json()`) cannot be verified: answered 500 `RAW_BODY_REQUIRED`, which names the set-up error.
 */
import type { HeadersInput } from './header-read.js';
import type { WebhookReceiver } from './receiver.js';
import { refusal, type WebhookVerdict } from './verdict.js';

/**
 * The part of node's `IncomingMessage` the listener reads, possibly with a body a framework already read.
 * Structural, so this package's types need no `@types/node` (ADR 0060); node's and Express's requests fit it.
 */
export interface NodeWebhookRequest {
  readonly method?: string | undefined;
  readonly headers: HeadersInput;
  readonly readableEnded: boolean;
  body?: unknown;
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
}

/** The part of node's `ServerResponse` the listener writes (structural, as `NodeWebhookRequest`). */
export interface NodeWebhookResponse {
  readonly headersSent: boolean;
  writeHead(status: number, headers: Record<string, string | number>): unknown;
  end(body: string): unknown;
  destroy(): unknown;
}

function send(res: NodeWebhookResponse, verdict: WebhookVerdict, close = false): void {
  const text = JSON.stringify(verdict.body);
  res.writeHead(verdict.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    // After a refused oversized body, the connection ends with the answer instead of reading the rest.
    ...(close ? { connection: 'close' } : {}),
  });
  res.end(text);
}

function readBody(req: NodeWebhookRequest, maxBytes: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let total = 0;
    let over = false;
    req.on('data', (chunk) => {
      if (over) return;
      total += chunk.length;
      if (total > maxBytes) {
        over = true;
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!over) resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', reject);
  });
}

/** A `(req, res)` listener for node:http or Express that answers with the receiver's verdict. */
export function nodeWebhookListener<Tx>(
  receiver: WebhookReceiver<Tx>,
): (req: NodeWebhookRequest, res: NodeWebhookResponse) => void {
  const handle = async (req: NodeWebhookRequest, res: NodeWebhookResponse): Promise<void> => {
    if (req.method !== 'POST')
      return send(res, refusal('METHOD_NOT_ALLOWED', 'webhooks are delivered with POST'));
    let body: string | undefined;
    if (Buffer.isBuffer(req.body)) body = req.body.toString('utf8');
    else if (typeof req.body === 'string') body = req.body;
    else if (req.body !== undefined && req.readableEnded)
      return send(
        res,
        refusal(
          'RAW_BODY_REQUIRED',
          'the body was parsed before the webhook receiver: mount a raw or text parser',
        ),
      );
    else body = await readBody(req, receiver.maxBodyBytes);
    if (body === undefined) {
      send(res, refusal('BODY_TOO_LARGE', `the body is larger than ${receiver.maxBodyBytes} bytes`), true);
      return;
    }
    send(res, await receiver.receive({ headers: req.headers, body }));
  };
  return (req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent)
        send(res, refusal('STORE_FAILED', 'the webhook could not be handled; retry later'));
      else res.destroy();
    });
  };
}
