/**
 * `a2a-once serve` prints exactly one line `a2a-once listening on http://HOST:PORT`, serves
 * until SIGINT or SIGTERM, then shuts down cleanly (exit code 0).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI_PATH, cliBuilt, startServe } from './serve-process.js';
import { sendForTask, userMessage } from './wire.js';

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe.skipIf(!cliBuilt)('a2a-once serve', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`announces one line, serves the echo agent, and exits 0 on ${signal}`, async () => {
      const serve = await startServe(['--store', 'memory', '--agent', 'echo', '--host', '127.0.0.1']);
      let stdout = '';
      serve.child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
      expect(serve.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const task = await sendForTask(serve.url, userMessage('ping'));
      expect(task.artifacts?.[0]?.parts[0]).toEqual({ text: 'echo: ping' });
      const exit = exitOf(serve.child);
      serve.child.kill(signal);
      expect(await exit).toBe(0);
      expect(stdout).toBe(''); // nothing after the announcement line
    }, 20_000);
  }

  it('serves the tck agent with the capabilities its card declares', async () => {
    const serve = await startServe(['--store', 'memory', '--agent', 'tck']);
    try {
      const card = (await (await fetch(`${serve.url}/.well-known/agent-card.json`)).json()) as {
        capabilities: Record<string, unknown>;
        supportedInterfaces: { protocolBinding: string; protocolVersion: string }[];
      };
      expect(card.capabilities).toMatchObject({
        streaming: true,
        pushNotifications: true, // serve delivers push notifications (ADR 0045)
        extendedAgentCard: true,
      });
      expect(card.supportedInterfaces.map((i) => i.protocolBinding).sort()).toEqual(['HTTP+JSON', 'JSONRPC']);
      expect(card.supportedInterfaces.every((i) => i.protocolVersion === '1.0')).toBe(true);
      const task = await sendForTask(serve.url, userMessage('x', { messageId: 'tck-complete-task-1' }));
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    } finally {
      await serve.stop();
    }
  }, 20_000);

  it('refuses a bad option with exit code 2 and a clear message', async () => {
    const child = spawn(process.execPath, [CLI_PATH, 'serve', '--agent', 'nope'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    expect(await exitOf(child)).toBe(2);
    expect(stderr).toMatch(/--agent must be one of echo, tck, ask, slow, delegating/);
  });
});
