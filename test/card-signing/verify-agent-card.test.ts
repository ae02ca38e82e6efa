/**
 * Verifying a card against keys the verifier chose (A2A §8.4.3, ADR 0073): a changed card fails, rotation keeps
 * a card verifiable by a client that trusts only the new key, an expired or removed key fails, and neither the
 * card nor a JWS header picks the trust root. Every refusal names its reason.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { base64url, type JWK } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { signAgentCard } from '../../src/card-signing/sign-agent-card.js';
import { CardSigningKeyError, resolveSigningKey } from '../../src/card-signing/signing-keys.js';
import { CardSignatureError, verifyAgentCard } from '../../src/card-signing/verify-agent-card.js';
import type { AgentCard } from '../../src/protocol/agent-card.js';
import { publishedCard } from './cards.js';
import { testKey } from './keys.js';

async function refusal(p: Promise<unknown>): Promise<CardSignatureError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CardSignatureError);
  return err as CardSignatureError;
}

const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

/** A real HTTP server answering every GET with `body` as JSON; resolves with its URL. */
async function jsonServer(body: unknown): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits += 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`, hits: () => hits };
}

describe('verifyAgentCard', () => {
  it('refuses an unsigned card (NO_SIGNATURE)', async () => {
    const { publicJwk } = await testKey('k1');
    expect((await refusal(verifyAgentCard(publishedCard(), { keys: [publicJwk] }))).reason).toBe(
      'NO_SIGNATURE',
    );
  });

  it.each<[string, (c: AgentCard) => AgentCard]>([
    ['one field changed', (c) => ({ ...c, description: `${c.description}.` })],
    [
      'a nested field changed',
      (c) => ({
        ...c,
        supportedInterfaces: [{ ...c.supportedInterfaces[0]!, url: 'https://evil.example/' }],
      }),
    ],
    ['a field added', (c) => ({ ...c, iconUrl: 'https://evil.example/icon.png' })],
    ['a field outside the schema added', (c) => ({ ...c, extra: true }) as AgentCard],
    ['skills reordered', (c) => ({ ...c, skills: [...c.skills].reverse() })],
    [
      'a security requirement removed',
      (c) => {
        const { securityRequirements: _r, ...rest } = c;
        return rest;
      },
    ],
  ])('refuses the card with %s (BAD_SIGNATURE)', async (_name, change) => {
    const { privateJwk, publicJwk } = await testKey('k1');
    const signed = await signAgentCard(publishedCard(), [privateJwk]);
    await expect(verifyAgentCard(signed, { keys: [publicJwk] })).resolves.toMatchObject({ kid: 'k1' });
    const err = await refusal(verifyAgentCard(change(signed), { keys: [publicJwk] }));
    expect(err.reason).toBe('BAD_SIGNATURE');
    expect(err.failures).toEqual([expect.objectContaining({ index: 0, kid: 'k1', reason: 'BAD_SIGNATURE' })]);
  });

  it('does not sign the order of signatures (§8.4.1 rule 3), but a signature moved to another header fails', async () => {
    const [a, b] = await Promise.all([testKey('a'), testKey('b')]);
    const signed = await signAgentCard(publishedCard(), [a.privateJwk, b.privateJwk]);
    const [sa, sb] = signed.signatures!;
    const reordered = { ...signed, signatures: [sb!, sa!] };
    await expect(verifyAgentCard(reordered, { keys: [a.publicJwk] })).resolves.toMatchObject({ kid: 'a' });
    const swapped = {
      ...signed,
      signatures: [
        { ...sa!, signature: sb!.signature },
        { ...sb!, signature: sa!.signature },
      ],
    };
    const err = await refusal(verifyAgentCard(swapped, { keys: [a.publicJwk, b.publicJwk] }));
    expect(err.reason).toBe('BAD_SIGNATURE');
  });

  it('rotation: a card signed by the old and the new key verifies for a client trusting only the new one', async () => {
    const [old, next] = await Promise.all([testKey('2026-01'), testKey('2026-12', 'EdDSA')]);
    const signed = await signAgentCard(publishedCard(), [old.privateJwk, next.privateJwk]);
    expect(signed.signatures).toHaveLength(2);
    await expect(verifyAgentCard(signed, { jwks: { keys: [next.publicJwk] } })).resolves.toMatchObject({
      kid: '2026-12',
      alg: 'EdDSA',
    });
  });

  it('a removed key fails (UNKNOWN_KID), an expired one fails (KEY_EXPIRED), by exp or notAfter', async () => {
    const { privateJwk, publicJwk } = await testKey('k1');
    const other = await testKey('k2');
    const signed = await signAgentCard(publishedCard(), [privateJwk]);
    expect((await refusal(verifyAgentCard(signed, { keys: [other.publicJwk] }))).reason).toBe('UNKNOWN_KID');
    const expired: JWK = { ...publicJwk, exp: Math.floor(Date.now() / 1000) - 60 } as JWK;
    expect((await refusal(verifyAgentCard(signed, { keys: [expired] }))).reason).toBe('KEY_EXPIRED');
    const still: JWK = { ...publicJwk, exp: Math.floor(Date.now() / 1000) + 3600 } as JWK;
    await expect(verifyAgentCard(signed, { keys: [still] })).resolves.toMatchObject({ kid: 'k1' });
    const { importJWK } = await import('jose');
    const key = (await importJWK(publicJwk, 'ES256')) as CryptoKey;
    const past = { kid: 'k1', key, notAfter: new Date(Date.now() - 1000) };
    expect((await refusal(verifyAgentCard(signed, { keys: [past] }))).reason).toBe('KEY_EXPIRED');
    await expect(verifyAgentCard(signed, { keys: [{ kid: 'k1', key }] })).resolves.toMatchObject({
      kid: 'k1',
    });
  });

  it('never takes the trust root from the card: a header jku pointing at an attacker JWKS with a matching key is refused', async () => {
    const genuine = await testKey('agent-key');
    const attacker = await testKey('agent-key'); // same kid, the attacker's own key pair
    const attackerJwks = await jsonServer({ keys: [attacker.publicJwk] });
    const forged = await signAgentCard({ ...publishedCard(), description: 'forged' }, [attacker.privateJwk], {
      jku: attackerJwks.url,
    });
    // A jwk in the unprotected header, too: neither is read.
    const withJwk = {
      ...forged,
      signatures: forged.signatures!.map((s) => ({
        ...s,
        header: { jwk: attacker.publicJwk as Record<string, string> },
      })),
    };
    const err = await refusal(verifyAgentCard(withJwk, { keys: [genuine.publicJwk] }));
    expect(err.reason).toBe('BAD_SIGNATURE');
    expect(attackerJwks.hits()).toBe(0);
  });

  it('reads a JWKS URL the caller names, and says TRUST_UNAVAILABLE when it is not a JWKS', async () => {
    const { privateJwk, publicJwk } = await testKey('k1');
    const signed = await signAgentCard(publishedCard(), [privateJwk]);
    const jwks = await jsonServer({ keys: [publicJwk] });
    await expect(verifyAgentCard(signed, { jwksUrl: jwks.url })).resolves.toMatchObject({ kid: 'k1' });
    expect(jwks.hits()).toBe(1);
    const notJwks = await jsonServer({ hello: 'world' });
    expect((await refusal(verifyAgentCard(signed, { jwksUrl: notJwks.url }))).reason).toBe(
      'TRUST_UNAVAILABLE',
    );
  });

  it('refuses a signature without kid (MALFORMED_SIGNATURE) and a symmetric alg (ALGORITHM_NOT_ALLOWED)', async () => {
    const { publicJwk } = await testKey('k1');
    const header = (h: object) => base64url.encode(JSON.stringify(h));
    const noKid = {
      ...publishedCard(),
      signatures: [{ protected: header({ alg: 'ES256' }), signature: 'AAAA' }],
    };
    expect((await refusal(verifyAgentCard(noKid, { keys: [publicJwk] }))).reason).toBe('MALFORMED_SIGNATURE');
    const hs = {
      ...publishedCard(),
      signatures: [{ protected: header({ alg: 'HS256', kid: 'k1' }), signature: 'AAAA' }],
    };
    expect((await refusal(verifyAgentCard(hs, { keys: [publicJwk] }))).reason).toBe('ALGORITHM_NOT_ALLOWED');
  });

  it('tells a signature over \\u-escaped bytes (not RFC 8785) apart from a forgery: CANONICAL_FORM_MISMATCH', async () => {
    const { privateJwk, publicJwk } = await testKey('py');
    const { FlattenedSign } = await import('jose');
    const { canonicalAgentCard } = await import('../../src/card-signing/canonical-forms.js');
    const card = publishedCard(); // its description holds non-ASCII
    const escaped = canonicalAgentCard(card).replace(
      /[\u0080-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
    const key = await resolveSigningKey(privateJwk);
    const jws = await new FlattenedSign(new TextEncoder().encode(escaped))
      .setProtectedHeader({ alg: 'ES256', kid: 'py', typ: 'JOSE' })
      .sign(key.privateKey);
    const signed = { ...card, signatures: [{ protected: jws.protected!, signature: jws.signature }] };
    expect((await refusal(verifyAgentCard(signed, { keys: [publicJwk] }))).reason).toBe(
      'CANONICAL_FORM_MISMATCH',
    );
  });
});

describe('signing keys', () => {
  it.each<[string, (k: JWK) => JWK, string]>([
    [
      'a public key',
      (k) => {
        const { d: _d, ...pub } = k;
        return pub;
      },
      'PUBLIC_KEY',
    ],
    [
      'a key without kid',
      (k) => {
        const { kid: _kid, ...rest } = k;
        return rest;
      },
      'MISSING_KID',
    ],
    ['an unsupported alg', (k) => ({ ...k, alg: 'HS256' }), 'UNSUPPORTED_ALG'],
    ['an alg that does not fit the key', (k) => ({ ...k, alg: 'RS256' }), 'UNSUPPORTED_ALG'],
    ['a symmetric key', () => ({ kty: 'oct', k: 'c2VjcmV0', kid: 'h' }), 'UNSUPPORTED_ALG'],
  ])('refuses %s', async (_name, change, code) => {
    const { privateJwk } = await testKey('k1');
    await expect(resolveSigningKey(change(privateJwk))).rejects.toSatisfy(
      (e) => e instanceof CardSigningKeyError && e.code === code,
    );
  });

  it('publishes only the public half, with kid, alg and use', async () => {
    const { privateJwk } = await testKey('k1', 'RS256');
    const key = await resolveSigningKey(privateJwk);
    expect(key.publicJwk).toMatchObject({ kid: 'k1', alg: 'RS256', use: 'sig', kty: 'RSA' });
    for (const m of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(key.publicJwk).not.toHaveProperty(m);
  });
});
