/**
 * Which UNAUTHENTICATED answers an unkeyed send is resent after (ADR 0079): only a real HTTP 401, which says the
 * request was not applied (RFC 9110 §15.5.2). The same error inside a JSON-RPC 200 envelope says nothing about
 * what the peer did before answering it, so an unkeyed send is not resent (a keyed one is: its key makes the
 * resend a replay). The peer is a real HTTP server that counts what it was asked and answers as told.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient } from '../../../src/client/index.js';
import { toJsonRpcError } from '../../../src/protocol/error-wire.js';
import { UnauthenticatedError } from '../../../src/protocol/errors.js';

let server: Server;
let url: string;
let envelopeStatus = 200;
let sends = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const rpc = JSON.parse(body) as { id: number; method: string };
      if (rpc.method === 'SendMessage') sends++;
      res.writeHead(envelopeStatus, { 'content-type': 'application/json' });
      const error = toJsonRpcError(new UnauthenticatedError());
      res.end(JSON.stringify({ jsonrpc: '2.0', id: rpc.id, error }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

function client(): A2AClient {
  let n = 0;
  return A2AClient.fromEndpoint(url, {
    binding: 'JSONRPC',
    retry: false,
    credentials: () => Promise.resolve({ bearer: `token-${++n}` }),
  });
}

describe('an unkeyed send answered UNAUTHENTICATED', () => {
  it('with HTTP 401 is resent once with a fresh credential (nothing was applied)', async () => {
    envelopeStatus = 401;
    sends = 0;
    await expect(client().send('hello', { key: false })).rejects.toMatchObject({ reason: 'UNAUTHENTICATED' });
    expect(sends).toBe(2);
  });

  it('inside a JSON-RPC 200 envelope is not resent (the peer may have worked before answering)', async () => {
    envelopeStatus = 200;
    sends = 0;
    await expect(client().send('hello', { key: false })).rejects.toMatchObject({ reason: 'UNAUTHENTICATED' });
    expect(sends).toBe(1);
  });

  it('a keyed send is resent either way: the resend with its key is a replay', async () => {
    envelopeStatus = 200;
    sends = 0;
    const keyed = A2AClient.fromEndpoint(url, {
      binding: 'JSONRPC',
      retry: false,
      peerHonoursKeys: true,
      credentials: () => Promise.resolve({ bearer: 'fresh' }),
    });
    await expect(keyed.send('hello')).rejects.toMatchObject({ reason: 'UNAUTHENTICATED' });
    expect(sends).toBe(2);
  });
});
