/**
 * `authorization` metadata goes through the same Authenticator as HTTP (ADR 0075, ADR 0106): none or a wrong
 * one is UNAUTHENTICATED with the challenge in `www-authenticate`; a tenant the credential is not granted is
 * PERMISSION_DENIED; a principal's tasks are its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerTokens } from '../../../src/server/index.js';
import { startGrpcFixture, userMessage, type GrpcFixture } from './grpc-fixture.js';
import { GrpcFailure } from './grpc-test-client.js';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdefgh';
let f: GrpcFixture;
beforeAll(async () => {
  f = await startGrpcFixture({
    http: {
      authenticate: bearerTokens({
        tokens: [
          { token: ALICE, principal: 'alice', tenants: ['', 'acme'] },
          { token: BOB, principal: 'bob' },
        ],
      }),
    },
  });
});
afterAll(() => f.close());

const as = (token: string) => ({ 'a2a-version': '1.0', authorization: `Bearer ${token}` });

async function failure(p: Promise<unknown>): Promise<GrpcFailure> {
  const r = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(r).toBeInstanceOf(GrpcFailure);
  return r as GrpcFailure;
}

describe('gRPC authentication', () => {
  it('no credential, or a wrong one, is UNAUTHENTICATED with a Bearer challenge; nothing runs', async () => {
    const runs = f.runs();
    for (const md of [{ 'a2a-version': '1.0' }, as('wrong-token-0123456789abcdef')]) {
      const fail = await failure(f.client.unary('SendMessage', { message: userMessage('x') }, md));
      expect(fail.code).toBe(16);
      expect(fail.trailers.get('www-authenticate')[0]).toMatch(/^Bearer/);
      expect(fail.status?.details?.[0]).toMatchObject({ reason: 'UNAUTHENTICATED' });
    }
    expect((await failure(f.client.stream('SubscribeToTask', { id: 'x' }, {}))).code).toBe(16);
    expect(f.runs()).toBe(runs);
  });

  it('a granted credential is served; an ungranted tenant is PERMISSION_DENIED', async () => {
    const sent = await f.client.unary(
      'SendMessage',
      { tenant: 'acme', message: userMessage('x') },
      as(ALICE),
    );
    const id = (sent.value as { task: { id: string } }).task.id;
    const denied = await failure(f.client.unary('GetTask', { tenant: 'acme', id }, as(BOB)));
    expect(denied.code).toBe(7);
    const other = await failure(
      f.client.unary('GetTask', { tenant: 'acme', id: 'x' }, as('nobody-0123456789abcdefgh')),
    );
    expect(other.code).toBe(16);
  });

  it("another principal does not see alice's task (NOT_FOUND, never revealing it exists)", async () => {
    const sent = await f.client.unary('SendMessage', { message: userMessage('x') }, as(ALICE));
    const id = (sent.value as { task: { id: string } }).task.id;
    expect((await failure(f.client.unary('GetTask', { id }, as(BOB)))).code).toBe(5);
    expect(((await f.client.unary('GetTask', { id }, as(ALICE))).value as { id: string }).id).toBe(id);
  });

  it('the extended card needs a credential', async () => {
    expect((await failure(f.client.unary('GetExtendedAgentCard', {}, {}))).code).toBe(16);
    await f.client.unary('GetExtendedAgentCard', {}, as(BOB));
  });
});
