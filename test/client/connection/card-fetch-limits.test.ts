/**
 * The card fetch's limits come from the caller (docs/guides/retries-and-the-client.md "Timeouts"):
 * `fromCardUrl`'s and `connect`'s `attemptTimeoutMs` bound each attempt of the card fetch, instead of a fixed
 * 10 s. A real server that accepts the card request and never answers it stands in for a stalled agent.
 */
import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient, TransportError } from '../../../src/client/index.js';

let server: Server;
let url: string;
let requests = 0;
const held: ServerResponse[] = [];

describe('attemptTimeoutMs applies to the card fetch', () => {
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests++;
      req.resume();
      held.push(res); // never answered
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const res of held) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('fromCardUrl with a 300 ms attemptTimeoutMs gives up on a stalled card well under 10 s', async () => {
    const before = requests;
    const started = Date.now();
    const err = await A2AClient.fromCardUrl(url, {
      attemptTimeoutMs: 300,
      retry: { maxAttempts: 2, backoff: { initialMs: 10, maxMs: 20 } },
    }).catch((e: unknown) => e);
    const elapsed = Date.now() - started;
    expect(err).toBeInstanceOf(TransportError);
    expect(err).toMatchObject({ kind: 'ambiguous', code: 'TIMEOUT' });
    expect(requests - before).toBe(2);
    // Two attempts of 300 ms; 10 s is what a fixed card timeout would take for the first alone.
    expect(elapsed).toBeLessThan(6_000);
  }, 30_000);

  it('connect passes it on too', async () => {
    const started = Date.now();
    const err = await A2AClient.connect(url, { attemptTimeoutMs: 300, retry: false }).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'TIMEOUT' });
    expect(Date.now() - started).toBeLessThan(6_000);
  }, 30_000);
});
