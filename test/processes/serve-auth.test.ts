/**
 * `a2a-once serve` as a real process (dist/), secure by default (ADR 0078): it refuses a host other than loopback
 * without an authenticator (exit 2, a line on stderr saying why), serves anyone on one with `--no-auth` and says
 * so, and on 127.0.0.1 checks `--auth-token` and `--auth-tokens-file` tokens and their tenants.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tokenPrincipalName } from '../../src/server/index.js';
import { bearer, call, message, reasonOf } from '../server/auth/auth-fixtures.js';
import { CLI_PATH, cliBuilt, startServe } from './serve-process.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-serve-auth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runToExit(args: string[]): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_PATH, 'serve', '--port', '0', '--store', 'memory', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.once('exit', (code) => resolve({ code, stderr, stdout }));
  });
}

describe.skipIf(!cliBuilt)('serve: who may call', () => {
  it('refuses 0.0.0.0 without authentication: exit 2, the reason on stderr, nothing listening', async () => {
    const r = await runToExit(['--host', '0.0.0.0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('refusing to listen on 0.0.0.0 without authentication');
    expect(r.stderr).toContain('--no-auth');
    expect(r.stdout).not.toContain('listening');
  });

  it('--no-auth on 0.0.0.0 serves anyone, and says so on stderr', async () => {
    const s = await startServe(['--host', '0.0.0.0', '--no-auth', '--store', 'memory']);
    try {
      expect(s.stderr()).toContain('authentication: none (--no-auth)');
      const url = s.url.replace('0.0.0.0', '127.0.0.1');
      const a = await call(url, 'jsonrpc', 'SendMessage', { message: message('hi') });
      expect(a.status).toBe(200);
    } finally {
      await s.stop();
    }
  });

  it('--no-auth with a token is a contradiction, refused', async () => {
    const r = await runToExit(['--no-auth', '--auth-token', 'some-token-123456']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--no-auth contradicts');
    expect(r.stderr).not.toContain('some-token-123456');
  });

  it('--auth-token and --auth-tokens-file on 127.0.0.1: tokens, principals and tenants checked', async () => {
    const file = join(dir, 'tokens');
    writeFileSync(
      file,
      [
        '# operators',
        'file-token-alice-0001 alice acme,beta',
        '',
        'file-token-root-00002 root *',
        'file-token-plain-0003 plain',
      ].join('\n'),
    );
    const s = await startServe([
      '--store',
      'memory',
      '--auth-token',
      'flag-token-00000001',
      '--auth-tokens-file',
      file,
    ]);
    try {
      expect(s.stderr()).toContain('authentication: 4 bearer token(s)');
      expect(s.stderr()).not.toContain('flag-token-00000001');
      const none = await call(s.url, 'rest', 'ListTasks', {});
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe('Bearer realm="a2a"');
      const flag = await call(
        s.url,
        'jsonrpc',
        'SendMessage',
        { message: message('hi') },
        bearer('flag-token-00000001'),
      );
      expect(flag.status).toBe(200);
      // A flag token's tenants: only requests that name none.
      expect(
        (await call(s.url, 'rest', 'ListTasks', { tenant: 'acme' }, bearer('flag-token-00000001'))).status,
      ).toBe(403);
      expect(
        (await call(s.url, 'rest', 'ListTasks', { tenant: 'beta' }, bearer('file-token-alice-0001'))).status,
      ).toBe(200);
      const denied = await call(
        s.url,
        'rest',
        'ListTasks',
        { tenant: 'gamma' },
        bearer('file-token-alice-0001'),
      );
      expect(reasonOf(denied)).toBe('PERMISSION_DENIED');
      expect((await call(s.url, 'rest', 'ListTasks', {}, bearer('file-token-alice-0001'))).status).toBe(403);
      expect(
        (await call(s.url, 'jsonrpc', 'ListTasks', { tenant: 'any' }, bearer('file-token-root-00002')))
          .status,
      ).toBe(200);
      expect((await call(s.url, 'jsonrpc', 'ListTasks', {}, bearer('file-token-plain-0003'))).status).toBe(
        200,
      );
      // The flag token's task belongs to token:<8 hex>; another token does not see it.
      const listed = await call(s.url, 'rest', 'ListTasks', {}, bearer('flag-token-00000001'));
      expect(listed.text).toContain('TASK_STATE_COMPLETED');
      const others = await call(s.url, 'rest', 'ListTasks', {}, bearer('file-token-plain-0003'));
      expect(others.text).not.toContain('TASK_STATE_COMPLETED');
      const card = (await (await fetch(`${s.url}/.well-known/agent-card.json`)).json()) as Record<
        string,
        unknown
      >;
      expect(card.securitySchemes).toEqual({
        bearer: {
          httpAuthSecurityScheme: {
            scheme: 'Bearer',
            description: 'A bearer token issued by the operator of this agent',
          },
        },
      });
      expect(tokenPrincipalName('flag-token-00000001')).toMatch(/^token:[0-9a-f]{8}$/);
    } finally {
      await s.stop();
    }
    expect(s.stderr()).not.toContain('file-token');
  });

  it('a bad tokens file line is refused with its number, never its text', async () => {
    const file = join(dir, 'bad-tokens');
    writeFileSync(file, '# ok\nfine-token-000001 ok\nsecret-token-in-a-bad-line\n');
    const r = await runToExit(['--auth-tokens-file', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('line 3');
    expect(r.stderr).not.toContain('secret-token-in-a-bad-line');
  });

  it('--jwks without --issuer and --audience is refused', async () => {
    const r = await runToExit(['--jwks', 'http://127.0.0.1:9/jwks']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('go together');
  });

  it('the tck agent still serves without authentication on loopback', async () => {
    const s = await startServe(['--agent', 'tck', '--store', 'memory']);
    try {
      expect(s.stderr()).toContain('authentication: none (loopback only)');
      const ext = await call(s.url, 'jsonrpc', 'GetExtendedAgentCard', {});
      expect(ext.status).toBe(200);
    } finally {
      await s.stop();
    }
  });
});
