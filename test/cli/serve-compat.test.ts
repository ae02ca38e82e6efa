/**
 * `a2a-once serve --compat v0.3` as a real process (dist/, ADR 0099, ADR 0100, docs/guides/v03-peers.md): the
 * card without `A2A-Version` is the v0.3 card and with `A2A-Version: 1.0` the v1.0 card, a v0.3 `message/send`
 * and a v0.3 HTTP+JSON send run on the tck agent, and `--help` lists the flag.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI_PATH, cliBuilt, startServe } from '../processes/serve-process.js';

describe.skipIf(!cliBuilt)('a2a-once serve --compat v0.3', () => {
  it('serves the v0.3 card, v0.3 JSON-RPC and v0.3 HTTP+JSON on the tck agent', async () => {
    const serve = await startServe(['--agent', 'tck', '--store', 'memory', '--compat', 'v0.3']);
    try {
      const cardUrl = `${serve.url}/.well-known/agent-card.json`;
      const v03 = (await (await fetch(cardUrl)).json()) as Record<string, unknown>;
      expect(v03.protocolVersion).toBe('0.3.0');
      expect(v03.preferredTransport).toBe('JSONRPC');
      const v1 = (await (await fetch(cardUrl, { headers: { 'A2A-Version': '1.0' } })).json()) as Record<
        string,
        unknown
      >;
      expect(v1.protocolVersion).toBeUndefined();
      expect((v1.supportedInterfaces as unknown[]).length).toBe(4);
      const rpc = await fetch(`${serve.url}/`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: {
            message: {
              kind: 'message',
              messageId: 'cli-v03-1',
              role: 'user',
              parts: [{ kind: 'text', text: 'hi' }],
            },
          },
        }),
      });
      const answer = (await rpc.json()) as { result?: { kind: string; status: { state: string } } };
      expect(answer.result?.kind).toBe('task');
      expect(answer.result?.status.state).toBeTruthy();
      const rest = await fetch(`${serve.url}/v1/message:send`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          message: { messageId: 'cli-v03-2', role: 'ROLE_USER', content: [{ text: 'hi' }] },
        }),
      });
      expect(rest.status).toBe(200);
      const task = ((await rest.json()) as { task: { status: { state: string } } }).task;
      expect(task.status.state).toMatch(/^TASK_STATE_/);
    } finally {
      await serve.stop();
    }
  }, 30_000);

  it('lists --compat in --help', () => {
    const r = spawnSync(process.execPath, [CLI_PATH, 'serve', '--help'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('--compat <version>');
  });
});
