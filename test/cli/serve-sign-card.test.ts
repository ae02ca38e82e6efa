/**
 * `a2a-once serve --sign-card KEY_FILE` as a real process (dist/, ADR 0074): the served card verifies against
 * the key's public half, with our verifier and with `@a2a-js/sdk`'s, and the JWKS is served; a public key, a
 * key without `kid` or with an unsupported `alg` is refused at start-up in one clear line.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyAgentCardSignature, type AgentCard as JsAgentCard } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { verifyAgentCard } from '../../src/card-signing/verify-agent-card.js';
import { testKey, type TestKey } from '../card-signing/keys.js';
import { CLI_PATH, cliBuilt, startServe } from '../processes/serve-process.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-cli-sign-'));
let key: TestKey;
beforeAll(async () => {
  vi.spyOn(console, 'debug').mockImplementation(() => undefined);
  key = await testKey('serve-key', 'EdDSA');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function keyFile(name: string, content: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

/** Runs `serve args` to its exit (a refused start) and returns its exit code and stderr. */
function serveRefused(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI_PATH, 'serve', '--store', 'memory', '--port', '0', ...args], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => {
    if (d.toString().includes('listening on')) child.kill('SIGTERM');
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
}

describe.skipIf(!cliBuilt)('a2a-once serve --sign-card', () => {
  it('serves a card signed with the key in the file, and its JWKS', async () => {
    const file = keyFile('signing.jwk', key.privateJwk);
    const serve = await startServe(['--agent', 'echo', '--store', 'memory', '--sign-card', file], dir);
    try {
      const card = (await (await fetch(`${serve.url}/.well-known/agent-card.json`)).json()) as object;
      await expect(verifyAgentCard(card, { keys: [key.publicJwk] })).resolves.toMatchObject({
        kid: 'serve-key',
        alg: 'EdDSA',
      });
      const verifier = verifyAgentCardSignature((kid) =>
        kid === 'serve-key' ? Promise.resolve(key.publicJwk) : Promise.reject(new Error(kid)),
      );
      await expect(verifier(card as JsAgentCard)).resolves.toBeUndefined();
      const jwks = (await (await fetch(`${serve.url}/.well-known/jwks.json`)).json()) as { keys: object[] };
      expect(jwks.keys).toEqual([expect.objectContaining({ kid: 'serve-key', alg: 'EdDSA', use: 'sig' })]);
      expect(jwks.keys[0]).not.toHaveProperty('d');
    } finally {
      await serve.stop();
    }
  }, 30_000);

  it.each([
    ['a public key', () => key.publicJwk, /is a public key: signing needs the private key/],
    ['a key without kid', () => ({ ...key.privateJwk, kid: undefined }), /needs a "kid"/],
    ['an unsupported alg', () => ({ ...key.privateJwk, alg: 'HS256' }), /alg "HS256" is not supported/],
    ['a file that is not JSON', () => 'not json', /not JSON/],
  ])(
    'refuses %s at start-up, in a line that names the file',
    async (name, content, message) => {
      const file = keyFile(`${name.replace(/\W+/g, '-')}.jwk`, content());
      const r = await serveRefused(['--sign-card', file]);
      expect(r.code).not.toBe(0);
      // One line says what is wrong (a usage hint may follow), and the key material is never shown.
      const first = r.stderr.split('\n')[0]!;
      expect(first).toMatch(message);
      expect(first).toContain(`--sign-card ${file}`);
      expect(r.stderr).not.toContain(String(key.privateJwk.d));
    },
    30_000,
  );
});
