/**
 * A webhook receiver on loopback for the push tests: a node:http server that records every request and answers
 * as a test tells it to (a status, after a delay), so it can fail, stall, or acknowledge twice.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as received. */
export interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly seq: number;
  readonly taskId: string;
}

/** How to answer request number `n` (0-based, over the receiver's life). */
export type Behaviour = (r: Received, n: number) => { status: number; delayMs?: number };

/** A running receiver. */
export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  /** Requests whose answer was 2xx, in the order they were answered. */
  readonly acknowledged: Received[];
  behave(b: Behaviour): void;
  /** Resolves once `pred` holds for what was received (polling), or rejects after `timeoutMs`. */
  until(pred: (r: Receiver) => boolean, timeoutMs?: number): Promise<void>;
  /** Sequence numbers acknowledged for a task, in first-acknowledgement order, without repeats. */
  firstAcks(taskId: string): number[];
  close(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 (port 0 unless given). */
export async function startReceiver(
  port = 0,
  behaviour: Behaviour = () => ({ status: 204 }),
): Promise<Receiver> {
  let behave = behaviour;
  let n = 0;
  const received: Received[] = [];
  const acknowledged: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        seq: Number(req.headers['a2a-once-sequence']),
        taskId: String(req.headers['webhook-id'] ?? '').replace(/:\d+$/, ''),
      };
      received.push(r);
      const { status, delayMs = 0 } = behave(r, n++);
      setTimeout(() => {
        if (res.destroyed) return;
        if (status >= 200 && status < 300) acknowledged.push(r);
        res.writeHead(status).end();
      }, delayMs);
    });
  });
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok));
  const addr = server.address() as AddressInfo;
  const self: Receiver = {
    url: `http://127.0.0.1:${addr.port}`,
    received,
    acknowledged,
    behave: (b) => {
      behave = b;
    },
    until: async (pred, timeoutMs = 10_000) => {
      const end = Date.now() + timeoutMs;
      while (!pred(self)) {
        if (Date.now() > end) throw new Error(`receiver: condition not met; got ${received.length} requests`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    firstAcks: (taskId) => {
      const out: number[] = [];
      for (const r of acknowledged) if (r.taskId === taskId && !out.includes(r.seq)) out.push(r.seq);
      return out;
    },
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
  return self;
}
