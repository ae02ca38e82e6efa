/**
 * `a2a-once serve --grpc-port N` as a real process (dist/, ADR 0108): the TCK agent over gRPC beside HTTP, the
 * address on stderr, the GRPC interface on the card after JSON-RPC and HTTP+JSON; a gRPC port in use fails the
 * start in one line naming the flag.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { cliBuilt, startServe } from '../processes/serve-process.js';
import { GrpcTestClient } from '../server/grpc/grpc-test-client.js';

async function grpcAddress(stderr: () => string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const m = /a2a-once serve: gRPC at (\S+)/.exec(stderr());
    if (m) return m[1]!;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no gRPC line on stderr:\n${stderr()}`);
}

describe.skipIf(!cliBuilt)('a2a-once serve --grpc-port', () => {
  it('serves the TCK agent over gRPC and lists it on the card', async () => {
    const serve = await startServe(['--agent', 'tck', '--store', 'memory', '--grpc-port', '0']);
    const client = new GrpcTestClient(await grpcAddress(serve.stderr));
    try {
      const address = await grpcAddress(serve.stderr);
      expect(address).toMatch(/^127\.0\.0\.1:\d+$/);
      const card = (await (await fetch(`${serve.url}/.well-known/agent-card.json`)).json()) as {
        supportedInterfaces: { url: string; protocolBinding: string; protocolVersion: string }[];
      };
      expect(card.supportedInterfaces.map((i) => i.protocolBinding)).toEqual([
        'JSONRPC',
        'HTTP+JSON',
        'GRPC',
      ]);
      expect(card.supportedInterfaces[2]).toEqual({
        url: address,
        protocolBinding: 'GRPC',
        protocolVersion: '1.0',
      });
      const sent = await client.unary('SendMessage', {
        message: { messageId: `tck-complete-task-${Date.now()}`, role: 'ROLE_USER', parts: [{ text: 'hi' }] },
      });
      expect(sent.value).toMatchObject({ task: { status: { state: 'TASK_STATE_COMPLETED' } } });
      const events = await client.stream('SendStreamingMessage', {
        message: {
          messageId: `tck-stream-artifact-text-${Date.now()}`,
          role: 'ROLE_USER',
          parts: [{ text: 'hi' }],
        },
      });
      expect(events.length).toBeGreaterThan(2);
    } finally {
      client.close();
      await serve.stop();
    }
  }, 30_000);

  it('a gRPC port in use fails the start naming --grpc-port', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      await expect(
        startServe(['--agent', 'echo', '--store', 'memory', '--grpc-port', String(port)]),
      ).rejects.toThrow(/--grpc-port/);
    } finally {
      blocker.close();
    }
  }, 30_000);
});
