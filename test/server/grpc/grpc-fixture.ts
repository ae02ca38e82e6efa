/**
 * One in-process server per test file, served over HTTP-less gRPC on a loopback port: an inline agent that
 * answers by the user text (`reply`: a direct message; `ask`: INPUT_REQUIRED; `hold`: works until released or
 * its call is cancelled; anything else: completes with an echo), with streaming, push configs and an extended
 * card, and a count of its runs.
 */
import { createA2AServer, type A2AServer } from '../../../src/server/index.js';
import type { A2AServerOptions } from '../../../src/server/options.js';
import type { HttpOptions } from '../../../src/server/http/http-options.js';
import { serveGrpc, type GrpcServeOptions, type GrpcServerHandle } from '../../../src/server/grpc/index.js';
import { GrpcTestClient } from './grpc-test-client.js';

export interface GrpcFixture {
  readonly a2a: A2AServer;
  readonly grpc: GrpcServerHandle;
  readonly client: GrpcTestClient;
  /** How many times the agent ran a turn. */
  runs(): number;
  /** Lets every held turn complete. */
  release(): void;
  close(): Promise<void>;
}

export async function startGrpcFixture(
  extras: Partial<Omit<A2AServerOptions, 'agent' | 'card'>> & { http?: HttpOptions } = {},
  grpcOptions: GrpcServeOptions = {},
): Promise<GrpcFixture> {
  let runs = 0;
  let release!: () => void;
  let released = new Promise<void>((r) => (release = r));
  const a2a = createA2AServer({
    agent: {
      async execute(ctx) {
        runs++;
        const text = ctx.userText;
        if (text === 'reply') return ctx.reply('a direct reply');
        if (text === 'ask') return ctx.requireInput('more, please');
        if (text === 'hold') {
          await ctx.working('holding');
          await released;
          return ctx.complete('released');
        }
        return ctx.complete(`echo: ${text}`);
      },
    },
    card: {
      name: 'grpc test agent',
      description: 'answers by its user text',
      capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
    },
    extendedCard: {
      name: 'grpc test agent (extended)',
      description: 'for authenticated callers',
      version: '1.0.0',
      supportedInterfaces: [],
      capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'secret', name: 'secret', description: 'extended only', tags: ['x'] }],
    },
    push: { allowPrivateTargets: true },
    ...extras,
  });
  const grpc = await serveGrpc(a2a, { host: '127.0.0.1', port: 0, ...grpcOptions });
  const client = new GrpcTestClient(grpc.address);
  return {
    a2a,
    grpc,
    client,
    runs: () => runs,
    release: () => {
      release();
      released = new Promise<void>((r) => (release = r));
    },
    async close() {
      release();
      client.close();
      await Promise.all([grpc.close({ graceMs: 500 }), a2a.close({ graceMs: 0 })]);
    },
  };
}

/** A user message in ProtoJSON. */
export function userMessage(text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    messageId: `m-${Math.random().toString(36).slice(2)}`,
    role: 'ROLE_USER',
    parts: [{ text }],
    ...extra,
  };
}
