/**
 * Bounded reading (ADR 0069, docs/guides/retries-and-the-client.md "How much the client reads"): every unary
 * answer, every card and every SSE event is read up to `maxResponseBytes` (default 8 MiB). A larger one fails with
 * a structured error naming the limit, without being held in memory: a declared Content-Length past the limit
 * fails before reading, a chunked body is counted as it arrives and cancelled once past the limit.
 *
 * The memory half runs the built client in a child process (a fresh heap, `process.resourceUsage().maxRSS` as the
 * high-water mark) against a real server sending 160 MiB, and holds the growth to a loose bound (6 × the limit).
 * The child runs with a small V8 nursery (`--max-semi-space-size=1`), so the high-water mark shows what the
 * client keeps rather than how far V8 lets its young generation grow under a burst of short-lived chunks.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  A2AClient,
  ClientError,
  SseEventTooLargeError,
  TransportError,
  fetchAgentCard,
} from '../../../src/client/index.js';
import { startBigAnswerServer } from '../harness/big-answers.js';
import type { BigAnswerServer } from '../harness/big-answers.js';

const MiB = 1024 * 1024;
const DEFAULT_LIMIT = 8 * MiB;
/** The size of the card that, read whole, grew a client by 500 MiB. */
const HUGE = 160 * MiB;
/**
 * The loose bound on growth: 6 × the limit, under a third of the body. What the client holds is at most the limit
 * (a body read past it is dropped); the rest is allocator and socket slack, which this loaded machine shows at
 * 10 to 35 MiB.
 */
const GROWTH_BOUND = 6 * DEFAULT_LIMIT;

const DIST_CLIENT = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'dist',
  'client',
  'index.js',
);
const BUILT = existsSync(DIST_CLIENT);

/** The child: warms up on a small answer, then makes one call that meets a huge one, and reports. */
const PROBE = `
const [entry, mode, base] = process.argv.slice(1);
const { A2AClient, fetchAgentCard } = await import(entry);
async function call(path) {
  const url = base + path;
  if (mode === 'card') return fetchAgentCard(url, { retry: false });
  const client = A2AClient.fromEndpoint(url, { retry: false });
  if (mode === 'unary') return client.getTask('t-1');
  for await (const ev of client.subscribe('t-1', { retry: false })) void ev;
}
await call('/small').catch(() => undefined);
await call('/small').catch(() => undefined);
globalThis.gc?.();
const before = process.resourceUsage().maxRSS * 1024;
let error = null;
try { await call('/huge'); } catch (err) {
  error = { name: err?.name, code: err?.code, limitBytes: err?.limitBytes, limit: err?.limit, message: String(err?.message) };
}
const after = process.resourceUsage().maxRSS * 1024;
process.stdout.write(JSON.stringify({ error, growthBytes: after - before }));
`;

interface ProbeResult {
  error: { name?: string; code?: string; limitBytes?: number; limit?: number; message: string } | null;
  growthBytes: number;
}

function probe(mode: 'card' | 'unary' | 'sse', base: string): Promise<ProbeResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [
        '--expose-gc',
        '--max-semi-space-size=1',
        '--input-type=module',
        '-e',
        PROBE,
        pathToFileURL(DIST_CLIENT).href,
        mode,
        base,
      ],
      { timeout: 60_000, maxBuffer: 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`probe failed: ${err.message}\n${stderr}`));
        resolve(JSON.parse(stdout) as ProbeResult);
      },
    );
  });
}

describe.skipIf(!BUILT)('a huge answer is not held in memory (built client, child process)', () => {
  const servers: BigAnswerServer[] = [];
  const start = async (huge: { contentLength: boolean; shape?: 'json' | 'sse' }) => {
    const s = await startBigAnswerServer({
      '/small': { size: 4096, contentLength: true, shape: huge.shape ?? 'json' },
      '/huge': { size: HUGE, ...huge },
    });
    servers.push(s);
    return s;
  };
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  for (const contentLength of [false, true]) {
    const how = contentLength ? 'with a Content-Length' : 'chunked, without a Content-Length';
    it(`a 160 MiB card, ${how}: ClientError RESPONSE_TOO_LARGE at the default 8 MiB`, async () => {
      const server = await start({ contentLength });
      const r = await probe('card', server.url);
      expect(r.error).toMatchObject({
        name: 'ClientError',
        code: 'RESPONSE_TOO_LARGE',
        limitBytes: DEFAULT_LIMIT,
      });
      expect(r.growthBytes).toBeLessThan(GROWTH_BOUND);
      expect(server.written('/huge')).toBeLessThan(HUGE / 2);
    }, 90_000);

    it(`a 160 MiB JSON-RPC answer, ${how}: TransportError RESPONSE_TOO_LARGE`, async () => {
      const server = await start({ contentLength });
      const r = await probe('unary', server.url);
      expect(r.error).toMatchObject({
        name: 'TransportError',
        code: 'RESPONSE_TOO_LARGE',
        limitBytes: DEFAULT_LIMIT,
      });
      expect(r.growthBytes).toBeLessThan(GROWTH_BOUND);
      expect(server.written('/huge')).toBeLessThan(HUGE / 2);
    }, 90_000);
  }

  it('one 160 MiB SSE event ends the stream with SseEventTooLargeError, not unbounded buffering', async () => {
    const server = await start({ contentLength: false, shape: 'sse' });
    const r = await probe('sse', server.url);
    expect(r.error).toMatchObject({ name: 'SseEventTooLargeError', limit: DEFAULT_LIMIT });
    expect(r.growthBytes).toBeLessThan(GROWTH_BOUND);
    expect(server.written('/huge')).toBeLessThan(HUGE / 2);
  }, 90_000);
});

describe('maxResponseBytes is the client option that bounds every read', () => {
  let server: BigAnswerServer;
  beforeAll(async () => {
    server = await startBigAnswerServer({
      '/card/big.json': { size: 2 * MiB, contentLength: false },
      '/card/fits.json': { size: 900 * 1024, contentLength: true },
      '/rpc-chunked': { size: 2 * MiB, contentLength: false },
      '/rpc-declared': { size: 2 * MiB, contentLength: true },
      '/rpc-bad-gateway': { size: 2 * MiB, contentLength: false, status: 502 },
      '/sse': { size: 2 * MiB, contentLength: false, shape: 'sse' },
    });
  });
  afterAll(() => server.close());

  const fast = { retry: { maxAttempts: 3, backoff: { initialMs: 5, maxMs: 10 } } } as const;

  it('a card past the limit is a definite ClientError naming the limit, not retried', async () => {
    const err = await fetchAgentCard(`${server.url}/card/big.json`, {
      ...fast,
      maxResponseBytes: MiB,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientError);
    expect(err).toMatchObject({ code: 'RESPONSE_TOO_LARGE', limitBytes: MiB });
    expect((err as Error).message).toContain(String(MiB));
    expect(server.requests('/card/big.json')).toBe(1);
  });

  it('a card under the limit is read (the limit is on bytes, not a blanket refusal)', async () => {
    // The padded body is not a card, so it fails as one; what matters is that it is not refused for its size.
    const err = await fetchAgentCard(`${server.url}/card/fits.json`, {
      retry: false,
      maxResponseBytes: MiB,
    }).catch((e: unknown) => e);
    expect(err).not.toMatchObject({ code: 'RESPONSE_TOO_LARGE' });
  });

  for (const path of ['/rpc-chunked', '/rpc-declared']) {
    it(`an answer past the limit (${path}) is an ambiguous RESPONSE_TOO_LARGE, and a read is not repeated`, async () => {
      const client = A2AClient.fromEndpoint(`${server.url}${path}`, { ...fast, maxResponseBytes: MiB });
      const before = server.requests(path);
      const err = await client.getTask('t-1').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TransportError);
      expect(err).toMatchObject({
        kind: 'ambiguous',
        code: 'RESPONSE_TOO_LARGE',
        limitBytes: MiB,
        httpStatus: 200,
      });
      // A repeat would bring the same answer back, no smaller (ADR 0069).
      expect(server.requests(path) - before).toBe(1);
    });
  }

  it('the limit can be raised for one call', async () => {
    const client = A2AClient.fromEndpoint(`${server.url}/rpc-chunked`, {
      retry: false,
      maxResponseBytes: MiB,
    });
    const err = await client.getTask('t-1', { maxResponseBytes: 4 * MiB }).catch((e: unknown) => e);
    // Read whole now: the padded result is not a task, so it fails as an invalid answer instead.
    expect(err).not.toMatchObject({ code: 'RESPONSE_TOO_LARGE' });
  });

  it('an oversized 502 is classified by its status (retried like any 502), not by its body', async () => {
    const client = A2AClient.fromEndpoint(`${server.url}/rpc-bad-gateway`, {
      ...fast,
      maxResponseBytes: MiB,
    });
    const before = server.requests('/rpc-bad-gateway');
    const err = await client.getTask('t-1').catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'ambiguous', code: 'BAD_GATEWAY', httpStatus: 502 });
    expect(server.requests('/rpc-bad-gateway') - before).toBe(3);
  });

  it('an SSE event past the limit ends the stream with an error naming the limit', async () => {
    const client = A2AClient.fromEndpoint(`${server.url}/sse`, { retry: false, maxResponseBytes: MiB });
    const err = await (async () => {
      for await (const ev of client.subscribe('t-1')) void ev;
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SseEventTooLargeError);
    expect(err).toMatchObject({ limit: MiB });
  });

  it('refuses a limit that is not a positive integer, before sending anything', () => {
    expect(() => A2AClient.fromEndpoint(`${server.url}/rpc-chunked`, { maxResponseBytes: 0 })).toThrow(
      ClientError,
    );
    expect(() => A2AClient.fromEndpoint(`${server.url}/rpc-chunked`, { maxResponseBytes: 1.5 })).toThrow(
      /maxResponseBytes/,
    );
  });
});
