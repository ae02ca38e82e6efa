/**
 * An `@a2a-js/sdk@1.3.0` agent on 127.0.0.1 for interop and fault tests: a server that ignores idempotency
 * keys (a2a-js-facts A10), with an executor that counts its executions so tests can assert "ran once".
 *
 * What the agent does depends on the text it gets:
 * - `slow:<n>`: WORKING, then `n` artifact chunks 60 ms apart, then COMPLETED (long enough to cut, subscribe
 *   or cancel mid-way);
 * - `ask`: INPUT_REQUIRED;
 * - `reply`: answers with a Message, no task;
 * - anything else: one artifact echoing the text, then COMPLETED.
 */
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { AgentCard, Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
} from '@a2a-js/sdk/server';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';

/** One execution the agent ran. */
export interface Execution {
  readonly taskId: string;
  readonly messageId: string;
  readonly text: string;
  readonly metadata: Record<string, unknown> | undefined;
}

/** A running a2a-js agent. */
export interface JsAgent {
  /** Base URL (the card is at `/.well-known/agent-card.json`). */
  readonly url: string;
  readonly jsonRpcUrl: string;
  readonly restUrl: string;
  /** Every execution, in order. */
  readonly executions: Execution[];
  close(): Promise<void>;
}

/** The part of an Express app used here (express 5 is installed without type declarations). */
interface ExpressApp {
  (req: IncomingMessage, res: ServerResponse): void;
  use(path: string, handler: unknown): void;
}

async function loadExpress(): Promise<() => ExpressApp> {
  const name = 'express';
  const mod = (await import(name)) as { default: () => ExpressApp };
  return mod.default;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function textOf(ctx: RequestContext): string {
  const first = ctx.userMessage.parts[0]?.content;
  return first?.$case === 'text' ? first.value : '';
}

/**
 * The agent both @a2a-js/sdk servers of the client tests run (this JSON-RPC/REST one and the gRPC one,
 * grpc/a2a-js-grpc-agent.ts): it logs every execution and answers by the message's text (`reply`, `ask`,
 * `chunksN`, …); `chunkDelayMs` paces the chunks of a streamed answer.
 */
export class CountingExecutor implements AgentExecutor {
  private readonly canceled = new Set<string>();
  private readonly contexts = new Map<string, string>();
  constructor(
    private readonly log: Execution[],
    private readonly chunkDelayMs = 60,
  ) {}

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const text = textOf(ctx);
    const msg = ctx.userMessage;
    this.log.push({ taskId: ctx.taskId, messageId: msg.messageId, text, metadata: msg.metadata });
    const ids = { taskId: ctx.taskId, contextId: ctx.contextId };
    this.contexts.set(ctx.taskId, ctx.contextId);
    const status = (state: string, extra: Record<string, unknown> = {}) =>
      bus.publish(
        AgentEvent.statusUpdate(
          TaskStatusUpdateEvent.fromJSON({
            ...ids,
            status: { state, timestamp: new Date().toISOString(), ...extra },
          }),
        ),
      );
    const artifact = (artifactId: string, value: string, append: boolean) =>
      bus.publish(
        AgentEvent.artifactUpdate(
          TaskArtifactUpdateEvent.fromJSON({
            ...ids,
            append,
            artifact: { artifactId, parts: [{ text: value }] },
          }),
        ),
      );
    if (text === 'reply') {
      bus.publish(
        AgentEvent.message(
          Message.fromJSON({
            messageId: `reply-${ctx.taskId}`,
            contextId: ctx.contextId,
            role: 'ROLE_AGENT',
            parts: [{ text: 'hi' }],
          }),
        ),
      );
      bus.finished();
      return;
    }
    bus.publish(
      AgentEvent.task(
        Task.fromJSON({
          id: ctx.taskId,
          contextId: ctx.contextId,
          status: { state: 'TASK_STATE_SUBMITTED' },
          history: [Message.toJSON(msg)],
        }),
      ),
    );
    if (text === 'ask') {
      status('TASK_STATE_INPUT_REQUIRED', {
        message: { messageId: `ask-${ctx.taskId}`, role: 'ROLE_AGENT', parts: [{ text: 'more?' }] },
      });
    } else if (text.startsWith('slow:')) {
      const n = Number(text.slice(5));
      status('TASK_STATE_WORKING');
      for (let i = 0; i < n; i++) {
        await sleep(this.chunkDelayMs);
        if (this.canceled.has(ctx.taskId)) return;
        artifact('out', `chunk${i}`, i > 0);
      }
      status('TASK_STATE_COMPLETED');
    } else {
      artifact('echo', text, false);
      status('TASK_STATE_COMPLETED');
    }
    bus.finished();
  }

  cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    this.canceled.add(taskId);
    bus.publish(
      AgentEvent.statusUpdate(
        TaskStatusUpdateEvent.fromJSON({
          taskId,
          contextId: this.contexts.get(taskId),
          status: { state: 'TASK_STATE_CANCELED' },
        }),
      ),
    );
    bus.finished();
    return Promise.resolve();
  }
}

/**
 * How the agent presents itself:
 * - `v1` (the default): a v1.0 card with JSON-RPC and HTTP+JSON interfaces at 1.0;
 * - `v03-interfaces`: a v1.0 card whose only interface is JSON-RPC at 0.3, served with a2a-js's
 *   `legacyCompat: { enabled: true }` (its v0.3 JSON-RPC compat layer);
 * - `v03-legacy-card`: the same agent, whose card route answers a2a-js's own v0.3 card (`legacyAgentCardRouter`)
 *   whatever `A2A-Version` asks, as an agent that predates v1.0 does;
 * - `v03-card`: the same agent, whose card is the v0.3 card shape alone (`url`, `protocolVersion`, no
 *   `supportedInterfaces`), as a v0.3-era server serves it.
 * `extensions` are advertised in the card's capabilities; `extendedCard` turns on the extended card.
 */
export interface JsAgentOptions {
  readonly present?: 'v1' | 'v03-interfaces' | 'v03-legacy-card' | 'v03-card';
  readonly extensions?: readonly string[];
}

/** Starts an a2a-js agent on 127.0.0.1, port 0, serving JSON-RPC and HTTP+JSON. */
export async function startJsAgent(options: JsAgentOptions = {}): Promise<JsAgent> {
  const present = options.present ?? 'v1';
  const v03 = present !== 'v1';
  const app = (await loadExpress())();
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const jsonRpcUrl = `${url}/a2a/jsonrpc`;
  const restUrl = `${url}/a2a/rest`;
  const card = AgentCard.fromJSON({
    name: 'js-counter',
    description: 'an @a2a-js/sdk agent that counts executions',
    version: '1.0.0',
    supportedInterfaces: v03
      ? [{ url: jsonRpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '0.3' }]
      : [
          { url: jsonRpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
          { url: restUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
        ],
    capabilities: {
      streaming: true,
      pushNotifications: true,
      extendedAgentCard: v03,
      extensions: (options.extensions ?? []).map((uri) => ({ uri })),
    },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'echo', description: 'echoes', tags: ['test'] }],
  });
  const executions: Execution[] = [];
  const handler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    new CountingExecutor(executions),
    undefined,
    new InMemoryPushNotificationStore(),
    undefined,
    () => Promise.resolve({ ...card, name: 'js-counter-extended' }),
  );
  const legacyCompat = { enabled: v03 };
  if (present === 'v03-legacy-card') {
    app.use('/.well-known/agent-card.json', (req: IncomingMessage, _res: unknown, next: () => void) => {
      delete req.headers['a2a-version'];
      next();
    });
  }
  if (present === 'v03-card') {
    app.use('/.well-known/agent-card.json', (_req: IncomingMessage, res: ServerResponse) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(v03CardOf(jsonRpcUrl, options.extensions ?? [])));
    });
  }
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler, legacyCompat }));
  app.use(
    '/a2a/jsonrpc',
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat }),
  );
  app.use('/a2a/rest', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return {
    url,
    jsonRpcUrl,
    restUrl,
    executions,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The v0.3 card of the agent, in the v0.3.0 shape (no `supportedInterfaces`). */
function v03CardOf(jsonRpcUrl: string, extensions: readonly string[]): Record<string, unknown> {
  return {
    name: 'js-counter',
    description: 'an @a2a-js/sdk agent that counts executions',
    version: '1.0.0',
    url: jsonRpcUrl,
    preferredTransport: 'JSONRPC',
    protocolVersion: '0.3.0',
    capabilities: {
      streaming: true,
      pushNotifications: true,
      extensions: extensions.map((uri) => ({ uri })),
    },
    supportsAuthenticatedExtendedCard: true,
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'echo', description: 'echoes', tags: ['test'] }],
  };
}
