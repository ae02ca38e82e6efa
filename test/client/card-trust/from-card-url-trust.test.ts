/**
 * `A2AClient.fromCardUrl(url, { trust })` (ADR 0073) against real a2a-once servers on sockets: a card signed by
 * a trusted key is used, a card without a signature or signed by another key is refused with a
 * `CardNotTrustedError` naming why, and a card whose header points at an attacker's JWKS holding a matching key
 * is refused without that JWKS ever being read.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient, CardNotTrustedError, ClientError } from '../../../src/client/index.js';
import { createA2AServer, type A2AServer } from '../../../src/server/create-server.js';
import { serveNode } from '../../../src/server/node/index.js';
import { testKey, type TestKey } from '../../card-signing/keys.js';
import { closeNode } from '../../helpers/close-node.js';

const echo = {
  agent: { execute: async (ctx: { complete: (t: string) => Promise<void> }) => ctx.complete('ok') },
  card: { name: 'echo', description: 'echoes', skills: [] },
};

let genuine: TestKey;
let attacker: TestKey;
const closers: (() => Promise<void>)[] = [];

async function listen(server: A2AServer): Promise<string> {
  const handle = await serveNode(server.fetch, { host: '127.0.0.1', port: 0 });
  closers.push(async () => {
    await closeNode(handle);
    await server.close();
  });
  return handle.url;
}

beforeAll(async () => {
  [genuine, attacker] = await Promise.all([testKey('agent'), testKey('agent')]);
});
afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
});

async function refusal(p: Promise<unknown>): Promise<CardNotTrustedError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CardNotTrustedError);
  expect(err).toBeInstanceOf(ClientError);
  expect((err as ClientError).code).toBe('CARD_NOT_TRUSTED');
  return err as CardNotTrustedError;
}

describe('fromCardUrl with trust', () => {
  it('uses a card signed by a trusted key (empty skills included), and sends through it', async () => {
    const url = await listen(createA2AServer({ ...echo, cardSigning: { keys: [genuine.privateJwk] } }));
    const client = await A2AClient.fromCardUrl(url, { trust: { keys: [genuine.publicJwk] } });
    expect(client.card?.name).toBe('echo');
    await expect(client.send('hi')).resolves.toBeDefined();
  });

  it('refuses an unsigned card (NO_SIGNATURE), unless the caller allows unsigned cards', async () => {
    const url = await listen(createA2AServer(echo));
    expect((await refusal(A2AClient.fromCardUrl(url, { trust: { keys: [genuine.publicJwk] } }))).reason).toBe(
      'NO_SIGNATURE',
    );
    await expect(
      A2AClient.fromCardUrl(url, { trust: { keys: [genuine.publicJwk], required: false } }),
    ).resolves.toBeInstanceOf(A2AClient);
  });

  it('refuses a card signed by a key it does not trust (UNKNOWN_KID)', async () => {
    const other = await testKey('other');
    const url = await listen(createA2AServer({ ...echo, cardSigning: { keys: [other.privateJwk] } }));
    expect((await refusal(A2AClient.fromCardUrl(url, { trust: { keys: [genuine.publicJwk] } }))).reason).toBe(
      'UNKNOWN_KID',
    );
  });

  it('never takes its trust root from the card: a jku at an attacker JWKS with a matching key is refused', async () => {
    let jwksReads = 0;
    const jwksServer: Server = createServer((_req, res) => {
      jwksReads += 1;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ keys: [attacker.publicJwk] }));
    });
    await new Promise<void>((r) => jwksServer.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise((r) => jwksServer.close(() => r())));
    const jku = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`;
    // The impostor signs with its own key under the genuine kid and points jku at its own JWKS.
    const url = await listen(createA2AServer({ ...echo, cardSigning: { keys: [attacker.privateJwk], jku } }));
    const err = await refusal(A2AClient.fromCardUrl(url, { trust: { keys: [genuine.publicJwk] } }));
    expect(err.reason).toBe('BAD_SIGNATURE');
    expect(jwksReads).toBe(0);
  });

  it('reads a JWKS URL the caller names (the server’s own, here)', async () => {
    const url = await listen(createA2AServer({ ...echo, cardSigning: { keys: [genuine.privateJwk] } }));
    const client = await A2AClient.fromCardUrl(url, { trust: { jwksUrl: `${url}/.well-known/jwks.json` } });
    expect(client.card?.name).toBe('echo');
  });
});
