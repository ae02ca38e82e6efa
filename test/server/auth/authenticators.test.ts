/**
 * The ready authenticators over real HTTP (docs/guides/security.md, ADR 0075): a missing or bad credential is
 * 401 with a `WWW-Authenticate` challenge on both bindings, a tenant not granted is 403, a good credential gets
 * through; `anyOf` lets the first authenticator that recognises a credential decide; the bare hook still works.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { anyOf, apiKeys, bearerTokens, tokenPrincipalName } from '../../../src/server/index.js';
import {
  bearer,
  call,
  message,
  reasonOf,
  startAuthServer,
  type AuthServer,
  type Binding,
} from './auth-fixtures.js';
import { UnauthenticatedError } from '../../../src/protocol/errors.js';

const ALICE = 'alice-token-0123456789';
const BOB = 'bob-token-9876543210';
const bindings: Binding[] = ['jsonrpc', 'rest'];

let running: AuthServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

function tokens() {
  return bearerTokens({
    tokens: [
      { token: ALICE, principal: 'alice', tenants: ['', 'acme'] },
      { token: BOB, principal: 'bob' },
    ],
  });
}

describe.each(bindings)('bearerTokens over %s', (binding) => {
  it('a request without a credential is 401 UNAUTHENTICATED with a Bearer challenge', async () => {
    running = await startAuthServer({ authenticate: tokens() });
    const a = await call(running.url, binding, 'SendMessage', { message: message('hi') });
    expect(a.status).toBe(401);
    expect(reasonOf(a)).toBe('UNAUTHENTICATED');
    expect(a.headers.get('www-authenticate')).toBe('Bearer realm="a2a"');
  });

  it('a token not in the list is 401, and the answer never repeats it', async () => {
    running = await startAuthServer({ authenticate: tokens() });
    const a = await call(running.url, binding, 'GetTask', { id: 'nope' }, bearer('not-a-listed-token'));
    expect(a.status).toBe(401);
    expect(reasonOf(a)).toBe('UNAUTHENTICATED');
    expect(a.headers.get('www-authenticate')).toContain('Bearer');
    expect(a.text).not.toContain('not-a-listed-token');
  });

  it('an empty bearer credential and another scheme are refused as well', async () => {
    running = await startAuthServer({ authenticate: tokens() });
    for (const headers of [{ Authorization: 'Bearer ' }, { Authorization: `Basic ${btoa('a:b')}` }]) {
      const a = await call(running.url, binding, 'ListTasks', {}, headers);
      expect(a.status).toBe(401);
    }
  });

  it('a listed token gets through, on the default tenant', async () => {
    running = await startAuthServer({ authenticate: tokens() });
    const a = await call(running.url, binding, 'SendMessage', { message: message('hi') }, bearer(ALICE));
    expect(a.status).toBe(200);
    expect(a.text).toContain('done for alice');
  });

  it('a tenant the token is not granted is 403 PERMISSION_DENIED; a granted one is served', async () => {
    running = await startAuthServer({ authenticate: tokens() });
    const denied = await call(running.url, binding, 'ListTasks', { tenant: 'acme' }, bearer(BOB));
    expect(denied.status).toBe(403);
    expect(reasonOf(denied)).toBe('PERMISSION_DENIED');
    expect(denied.headers.get('www-authenticate')).toBeNull();
    const other = await call(running.url, binding, 'ListTasks', { tenant: 'zeta' }, bearer(ALICE));
    expect(other.status).toBe(403);
    const granted = await call(running.url, binding, 'ListTasks', { tenant: 'acme' }, bearer(ALICE));
    expect(granted.status).toBe(200);
  });

  it('a streaming call without a credential is refused before any stream starts', async () => {
    running = await startAuthServer({ authenticate: tokens() });
    const a = await call(running.url, binding, 'SendStreamingMessage', { message: message('hi') });
    expect(a.status).toBe(401);
    expect(a.headers.get('content-type')).not.toContain('event-stream');
  });
});

describe('apiKeys', () => {
  it.each(bindings)(
    'reads the configured header (%s); Authorization is not its to judge',
    async (binding) => {
      running = await startAuthServer({
        authenticate: apiKeys({
          header: 'X-Agent-Key',
          keys: [{ token: 'key-abcdef-123456', tenants: '*' }],
        }),
      });
      const none = await call(running.url, binding, 'ListTasks', {}, bearer('key-abcdef-123456'));
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('ApiKey realm="a2a", header="X-Agent-Key"');
      const bad = await call(running.url, binding, 'ListTasks', {}, { 'X-Agent-Key': 'wrong-key-000000' });
      expect(bad.status).toBe(401);
      const ok = await call(
        running.url,
        binding,
        'SendMessage',
        { message: message('hi') },
        { 'X-Agent-Key': 'key-abcdef-123456' },
      );
      expect(ok.status).toBe(200);
      // No principal configured: a stable, non-secret name derived from the key.
      expect(ok.text).toContain(`done for ${tokenPrincipalName('key-abcdef-123456')}`);
      const anyTenant = await call(
        running.url,
        binding,
        'ListTasks',
        { tenant: 't1' },
        { 'X-Agent-Key': 'key-abcdef-123456' },
      );
      expect(anyTenant.status).toBe(200);
    },
  );

  it('refuses a header that cannot be one, and Authorization', () => {
    expect(() => apiKeys({ header: 'Authorization', keys: [{ token: 'k-0123456789abcdef' }] })).toThrow(
      RangeError,
    );
    expect(() => apiKeys({ header: 'bad header', keys: [{ token: 'k-0123456789abcdef' }] })).toThrow(
      RangeError,
    );
  });
});

describe('token lists', () => {
  it('refuse a malformed list without echoing the token', () => {
    const secret = 'has space secret';
    let msg = '';
    try {
      bearerTokens({ tokens: [{ token: secret }] });
    } catch (err) {
      msg = (err as Error).message;
    }
    expect(msg).toContain('bearerTokens.tokens[0]');
    expect(msg).not.toContain('secret');
    expect(() => bearerTokens({ tokens: [] })).toThrow(RangeError);
    expect(() =>
      bearerTokens({ tokens: [{ token: 'same-token-1234' }, { token: 'same-token-1234' }] }),
    ).toThrow(/twice/);
  });

  it('take a token by its SHA-256 alone', async () => {
    const { createHash } = await import('node:crypto');
    const sha = createHash('sha256').update('hashed-only-token-42').digest('hex');
    running = await startAuthServer({
      authenticate: bearerTokens({ tokens: [{ tokenSha256: sha, principal: 'h' }] }),
    });
    const ok = await call(running.url, 'rest', 'ListTasks', {}, bearer('hashed-only-token-42'));
    expect(ok.status).toBe(200);
  });
});

describe('anyOf', () => {
  it('the first authenticator that recognises a credential decides; the others still work', async () => {
    running = await startAuthServer({
      authenticate: anyOf(
        apiKeys({ keys: [{ token: 'api-key-0000000001', principal: 'svc' }] }),
        bearerTokens({ tokens: [{ token: ALICE, principal: 'alice' }] }),
      ),
    });
    const key = await call(
      running.url,
      'jsonrpc',
      'SendMessage',
      { message: message('hi') },
      { 'X-API-Key': 'api-key-0000000001' },
    );
    expect(key.text).toContain('done for svc');
    const tok = await call(running.url, 'jsonrpc', 'SendMessage', { message: message('hi') }, bearer(ALICE));
    expect(tok.text).toContain('done for alice');
    // A bad API key is refused by apiKeys, even with a good bearer token next to it.
    const bad = await call(
      running.url,
      'jsonrpc',
      'ListTasks',
      {},
      { 'X-API-Key': 'wrong', ...bearer(ALICE) },
    );
    expect(bad.status).toBe(401);
    const none = await call(running.url, 'rest', 'ListTasks', {});
    expect(none.headers.get('www-authenticate')).toBe(
      'ApiKey realm="a2a", header="X-API-Key", Bearer realm="a2a"',
    );
  });

  it('refuses two schemes under one name', () => {
    expect(() =>
      anyOf(
        bearerTokens({ scheme: 'x', tokens: [{ token: 'aaaaaaaaaaaaaaaa' }] }),
        apiKeys({ scheme: 'x', keys: [{ token: 'bbbbbbbbbbbbbbbb' }] }),
      ),
    ).toThrow(/scheme 'x'/);
  });
});

describe('the bare hook (kept for compatibility)', () => {
  it('a principal string may use any tenant; undefined is anonymous; a thrown refusal is 401', async () => {
    running = await startAuthServer({
      authenticate: (req) => {
        const who = req.headers.get('x-who');
        if (who === 'intruder') throw new UnauthenticatedError('go away');
        return who ?? undefined;
      },
    });
    const a = await call(
      running.url,
      'rest',
      'SendMessage',
      { tenant: 'any-tenant', message: message('hi') },
      { 'x-who': 'carol' },
    );
    expect(a.status).toBe(200);
    expect(a.text).toContain('done for carol');
    const anon = await call(running.url, 'jsonrpc', 'SendMessage', { message: message('hi') });
    expect(anon.text).toContain('done for ');
    const refused = await call(running.url, 'jsonrpc', 'ListTasks', {}, { 'x-who': 'intruder' });
    expect(refused.status).toBe(401);
    // The hook's scheme is unknown: no challenge is made up.
    expect(refused.headers.get('www-authenticate')).toBeNull();
  });
});
