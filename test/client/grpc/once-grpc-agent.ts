/**
 * An a2a-once agent served in process over gRPC and HTTP on loopback, for the gRPC client's tests. What it does
 * depends on the text it gets:
 * - `reply`: a direct message, no task;
 * - `ask`: INPUT_REQUIRED;
 * - `chunks:<n>`: WORKING, then `n` artifact chunks, then COMPLETED (`chunkDelayMs` apart, default 0);
 * - `hold`: WORKING until `release()`, then COMPLETED;
 * - anything else: COMPLETED with an echo.
 * `onRun` is told of every run before it answers (a test cuts a connection there: the request arrived).
 */
import type { AgentCard } from '../../../src/protocol/agent-card.js';
import { createA2AServer, type A2AServer } from '../../../src/server/index.js';
import type { A2AServerOptions } from '../../../src/server/options.js';
import type { HttpOptions } from '../../../src/server/http/http-options.js';
import { serveNode, type NodeServerHandle } from '../../../src/server/node/index.js';
import { serveGrpc, type GrpcServerHandle } from '../../../src/server/grpc/index.js';
import { closeNode } from '../../helpers/close-node.js';
import { checkPortFree } from '../../server/grpc/free-port.js';

export interface OnceGrpcAgent {
  readonly a2a: A2AServer;
  readonly grpc: GrpcServerHandle;
  readonly http: NodeServerHandle;
  /** `127.0.0.1:<port>` of the gRPC listener. */
  readonly grpcAddress: string;
  /** The base URL of the HTTP listener (its card lists JSON-RPC, HTTP+JSON, then GRPC). */
  readonly url: string;
  /** The card as served. */
  card(): Promise<AgentCard>;
  /** Every run's user text, in order. */
  readonly runs: string[];
  /** Lets every held turn complete. */
  release(): void;
  close(): Promise<void>;
}

export interface OnceGrpcAgentOptions {
  readonly onRun?: (text: string) => void | Promise<void>;
  readonly chunkDelayMs?: number;
  /** The gRPC port (default: a free one). */
  readonly grpcPort?: number;
  /** Extensions the card declares (a `required` one must be requested by every call). */
  readonly cardExtensions?: readonly { uri: string; required?: boolean }[];
  readonly http?: HttpOptions;
  readonly extras?: Partial<Omit<A2AServerOptions, 'agent' | 'card' | 'grpcInterface'>>;
}

export async function startOnceGrpcAgent(options: OnceGrpcAgentOptions = {}): Promise<OnceGrpcAgent> {
  const runs: string[] = [];
  let release!: () => void;
  let released = new Promise<void>((r) => (release = r));
  const port = options.grpcPort ?? (await checkPortFree());
  const grpcAddress = `127.0.0.1:${port}`;
  const a2a = createA2AServer({
    agent: {
      async execute(ctx) {
        const text = ctx.userText;
        runs.push(text);
        await options.onRun?.(text);
        if (text === 'reply') return ctx.reply('a direct reply');
        if (text === 'ask') return ctx.requireInput('more, please');
        if (text === 'hold') {
          await ctx.working('holding');
          await released;
          return ctx.complete('released');
        }
        if (text.startsWith('chunks:')) {
          await ctx.working();
          const n = Number(text.slice('chunks:'.length));
          for (let i = 0; i < n; i++) {
            if (options.chunkDelayMs) await new Promise((r) => setTimeout(r, options.chunkDelayMs));
            await ctx.artifact(
              { artifactId: 'out', parts: [{ text: `chunk${i}` }] },
              { append: i > 0, lastChunk: i === n - 1 },
            );
          }
          return ctx.complete('done');
        }
        return ctx.complete(`echo: ${text}`);
      },
    },
    card: {
      name: 'grpc client test agent',
      description: 'answers by its user text',
      capabilities: {
        streaming: true,
        pushNotifications: true,
        extendedAgentCard: true,
        ...(options.cardExtensions ? { extensions: [...options.cardExtensions] } : {}),
      },
    },
    extendedCard: {
      name: 'grpc client test agent (extended)',
      description: 'for authenticated callers',
      version: '1.0.0',
      supportedInterfaces: [],
      capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'secret', name: 'secret', description: 'extended only', tags: ['x'] }],
    },
    grpcInterface: { url: grpcAddress },
    push: { allowPrivateTargets: true },
    ...(options.http ? { http: options.http } : {}),
    ...options.extras,
  });
  const grpc = await serveGrpc(a2a, { host: '127.0.0.1', port });
  const http = await serveNode(a2a.fetch, { port: 0 });
  return {
    a2a,
    grpc,
    http,
    grpcAddress,
    url: http.url,
    async card() {
      const res = await fetch(`${http.url}/.well-known/agent-card.json`);
      return (await res.json()) as AgentCard;
    },
    runs,
    release: () => {
      release();
      released = new Promise<void>((r) => (release = r));
    },
    async close() {
      release();
      await Promise.all([closeNode(http), grpc.close({ graceMs: 200 }), a2a.close({ graceMs: 0 })]);
    },
  };
}
