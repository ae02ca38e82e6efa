/**
 * An agent URL is checked before anything is fetched (src/client/connection/agent-url.ts): `localhost:8080` or
 * `127.0.0.1:8080` is a definite `INVALID_ARGUMENT` naming the URL meant, never a connection failure that reads
 * as "may have run"; nor is a URL with a password in it. A refused connection names the URL it was refused at,
 * without its query.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { A2AClient, ClientError, TransportError } from '../../../src/client/index.js';
import { agentUrlProblem } from '../../../src/client/connection/agent-url.js';

/** A port nothing listens on: bound, then let go. */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('agentUrlProblem', () => {
  it.each([
    ['localhost:8080', '"localhost:8080" has no scheme; did you mean http://localhost:8080?'],
    ['127.0.0.1:8080', '"127.0.0.1:8080" has no scheme; did you mean http://127.0.0.1:8080?'],
    ['example.com/agent', '"example.com/agent" has no scheme; did you mean http://example.com/agent?'],
    ['ftp://example.com', '"ftp://example.com" uses ftp, not http or https'],
    ['', '"" has no scheme'],
  ])('%j: %s', (url, problem) => {
    expect(agentUrlProblem(url)).toBe(problem);
  });

  it('refuses user info, without repeating it', () => {
    const problem = agentUrlProblem('http://user:secret@127.0.0.1:8080/rpc');
    expect(problem).toBe(
      '"http://127.0.0.1:8080/rpc" was given with a user name or password in it; pass credentials with the ' +
        "client's `credentials` or `headers` option instead",
    );
  });

  it('accepts http and https URLs', () => {
    expect(agentUrlProblem('http://localhost:8080')).toBeUndefined();
    expect(agentUrlProblem('https://agent.example.com/a2a/v1')).toBeUndefined();
  });
});

describe('a client for a URL without a scheme', () => {
  it.each(['fromCardUrl', 'connect', 'fromEndpoint'] as const)(
    '%s refuses it before fetching anything',
    async (how) => {
      let fetched = 0;
      const fetch = () => {
        fetched++;
        return Promise.reject(new Error('must not be called'));
      };
      const open = async () =>
        how === 'fromEndpoint'
          ? A2AClient.fromEndpoint('localhost:8080', { fetch })
          : A2AClient[how]('localhost:8080', { fetch });
      const err = await open().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ClientError);
      expect((err as ClientError).code).toBe('INVALID_ARGUMENT');
      expect((err as Error).message).toContain('did you mean http://localhost:8080?');
      expect(fetched).toBe(0);
    },
  );
});

describe('a refused connection', () => {
  it('is not-sent and names the URL, without its query', async () => {
    const port = await freePort();
    const client = A2AClient.fromEndpoint(`http://127.0.0.1:${port}/rpc?token=hush`, {
      retry: false,
    });
    const err = await client.send('hello', { key: false }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).kind).toBe('not-sent');
    const message = (err as Error).message;
    expect(message).toContain(`request to http://127.0.0.1:${port}/rpc not sent (ECONNREFUSED)`);
    expect(message).not.toContain('hush');
  });

  it('a port fetch refuses to use is not-sent too, not an ambiguous reset', async () => {
    const client = A2AClient.fromEndpoint('http://127.0.0.1:1/', { retry: false });
    const err = await client.send('hello', { key: false }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).kind).toBe('not-sent');
    expect((err as Error).message).toContain('fetch does not connect to this port');
  });
});
