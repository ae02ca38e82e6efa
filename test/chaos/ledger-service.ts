/**
 * A downstream service for the chaos tests: a small node:http ledger on 127.0.0.1, run inside the test process,
 * that deduplicates on the idempotency key the agent passes it (docs/semantics.md §4, ADR 0038) and records each
 * distinct key's effect once. It is the witness of "the agent's work runs once": whatever a killed server
 * retried, the ledger holds one entry per key, and it also counts every request so a test can tell a deduplicated
 * second call from no second call at all.
 *
 * `POST /entries` with header `Idempotency-Key` and JSON `{"text": ...}`: 201 `{"entry"}` for a new key, 200 with
 * the same `{"entry"}` for a key seen before; 400 `{"error"}` without a key or without a text. `GET /entries/<key>`:
 * 200 `{"entry"}` for a key seen, 404 otherwise.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One effect the ledger made. */
export interface LedgerEntry {
  readonly entry: string;
  readonly key: string;
  readonly text: string;
}

/** A running ledger. */
export interface LedgerService {
  /** Base URL, for `A2A_ONCE_LEDGER_URL`. */
  readonly url: string;
  /** One entry per distinct key, in arrival order. */
  entries(): LedgerEntry[];
  /** How many posts arrived under `key` (deduplicated ones included). */
  requestsFor(key: string): number;
  /** Every post that arrived, deduplicated or not. */
  requestCount(): number;
  /** How many lookups of an entry by key arrived (`GET /entries/<key>`). */
  lookupCount(): number;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += (chunk as Buffer).toString('utf8');
  return text;
}

/** Starts a ledger on an ephemeral port of 127.0.0.1. */
export async function startLedger(): Promise<LedgerService> {
  const byKey = new Map<string, LedgerEntry>();
  const requests = new Map<string, number>();
  let total = 0;
  let lookups = 0;
  const server: Server = createServer((req, res) => {
    const answer = (status: number, body: object) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    // An entry by its key, for an agent that must find out whether its post arrived (ADR 0123).
    if (req.method === 'GET' && req.url?.startsWith('/entries/') === true) {
      lookups++;
      const seen = byKey.get(decodeURIComponent(req.url.slice('/entries/'.length)));
      return seen ? answer(200, { entry: seen.entry }) : answer(404, { error: 'NOT_FOUND' });
    }
    if (req.method !== 'POST' || req.url !== '/entries') return answer(404, { error: 'NOT_FOUND' });
    const handle = (raw: string) => {
      total++;
      const key = req.headers['idempotency-key'];
      if (typeof key !== 'string' || key === '') return answer(400, { error: 'IDEMPOTENCY_KEY_MISSING' });
      requests.set(key, (requests.get(key) ?? 0) + 1);
      let text: unknown;
      try {
        text = (JSON.parse(raw) as { text?: unknown }).text;
      } catch {
        return answer(400, { error: 'BODY_NOT_JSON' });
      }
      if (typeof text !== 'string') return answer(400, { error: 'TEXT_MISSING' });
      const seen = byKey.get(key);
      if (seen) return answer(200, { entry: seen.entry });
      const entry = { entry: `e${byKey.size + 1}`, key, text };
      byKey.set(key, entry);
      return answer(201, { entry: entry.entry });
    };
    // A caller that went away mid-body (a killed server's request) is simply dropped.
    readBody(req).then(handle, () => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    entries: () => [...byKey.values()],
    requestsFor: (key) => requests.get(key) ?? 0,
    requestCount: () => total,
    lookupCount: () => lookups,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
