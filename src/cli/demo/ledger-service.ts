/**
 * The downstream service of the demo's leaves: a small payment-style ledger on 127.0.0.1, run inside the demo
 * process. Each leaf posts to its own path (`POST /<leaf>/entries`, the `ledger` agent's protocol: header
 * `Idempotency-Key`, JSON `{"text"}`), so the ledger knows which leaf asked. Like a real payment API it
 * deduplicates on the key: a key seen before gets the first entry back and makes no new effect. It counts both,
 * effects made and requests received, so the demo can tell "deduplicated" from "never asked".
 *
 * For `--crash` it can hold the answer to one leaf's first post: the effect is made, and the leaf's server is
 * killed before it hears back (so before the task finished).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the ledger counted for one leaf. */
export interface LedgerCounts {
  /** Effects made: one per distinct key. */
  readonly effects: number;
  /** Posts received, deduplicated ones included. */
  readonly requests: number;
}

/** A running ledger. */
export interface LedgerService {
  readonly url: string;
  /** The base URL a leaf posts under (`A2A_ONCE_LEDGER_URL` of that leaf's server). */
  baseFor(leaf: string): string;
  counts(leaf: string): LedgerCounts;
  /**
   * Holds the answer to the next post from `leaf` that makes an effect; resolves once that effect is made and its
   * answer held. The held answer is never sent.
   */
  holdNextEffect(leaf: string): Promise<void>;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += (chunk as Buffer).toString('utf8');
  return text;
}

function answer(res: ServerResponse, status: number, body: object): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Starts a ledger on an ephemeral port of 127.0.0.1. */
export async function startLedgerService(
  onEffect: (leaf: string) => void = () => {},
): Promise<LedgerService> {
  /** Entry id by `<leaf> <key>`. */
  const entries = new Map<string, string>();
  const effects = new Map<string, number>();
  const requests = new Map<string, number>();
  const holds = new Map<string, () => void>();
  const bump = (m: Map<string, number>, leaf: string) => m.set(leaf, (m.get(leaf) ?? 0) + 1);

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string): void => {
    const m = /^\/([a-z0-9-]+)\/entries$/.exec(req.url ?? '');
    if (req.method !== 'POST' || m === null) return answer(res, 404, { error: 'NOT_FOUND' });
    const leaf = m[1]!;
    bump(requests, leaf);
    const key = req.headers['idempotency-key'];
    if (typeof key !== 'string' || key === '') return answer(res, 400, { error: 'IDEMPOTENCY_KEY_MISSING' });
    let text: unknown;
    try {
      text = (JSON.parse(raw) as { text?: unknown }).text;
    } catch {
      return answer(res, 400, { error: 'BODY_NOT_JSON' });
    }
    if (typeof text !== 'string') return answer(res, 400, { error: 'TEXT_MISSING' });
    const seen = entries.get(`${leaf} ${key}`);
    if (seen !== undefined) return answer(res, 200, { entry: seen });
    const entry = `${leaf}-${entries.size + 1}`;
    entries.set(`${leaf} ${key}`, entry);
    bump(effects, leaf);
    onEffect(leaf);
    const held = holds.get(leaf);
    if (held !== undefined) {
      holds.delete(leaf);
      return held(); // the effect is made; its answer is never sent
    }
    answer(res, 201, { entry });
  };

  const server: Server = createServer((req, res) => {
    // A caller that went away mid-body (a killed server's request) is simply dropped.
    readBody(req).then(
      (raw) => handle(req, res, raw),
      () => res.destroy(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseFor: (leaf) => `${url}/${leaf}/`,
    counts: (leaf) => ({ effects: effects.get(leaf) ?? 0, requests: requests.get(leaf) ?? 0 }),
    holdNextEffect: (leaf) => new Promise<void>((resolve) => holds.set(leaf, resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
