/**
 * An `@a2a-js/sdk@1.3.0` agent served by that SDK's own gRPC server (`@a2a-js/sdk/server/grpc`: `grpcService` on a
 * grpc-js `Server`) on loopback, for our gRPC client's interop tests. It ignores idempotency keys, as that SDK does,
 * and counts its executions. By text: `slow:<n>` (WORKING, `n` chunks 30 ms apart, COMPLETED), `ask`
 * (INPUT_REQUIRED), `reply` (a message), anything else (an echo artifact, COMPLETED).
 */
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { AgentCard, Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
} from '@a2a-js/sdk/server';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import { A2AService, UserBuilder, grpcService } from '@a2a-js/sdk/server/grpc';
import { checkPortFree } from '../../server/grpc/free-port.js';

export interface JsGrpcAgent {
  /** `127.0.0.1:<port>`, as its card lists it. */
  readonly address: string;
  /** The card, as our client reads it (ProtoJSON). */
  readonly card: Record<string, unknown>;
  /** The text of every execution, in order. */
  readonly executions: string[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function textOf(ctx: RequestContext): string {
  const first = ctx.userMessage.parts[0]?.content;
  return first?.$case === 'text' ? first.value : '';
}

class CountingExecutor implements AgentExecutor {
  private readonly canceled = new Set<string>();
  private readonly contexts = new Map<string, string>();
  constructor(private readonly log: string[]) {}

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const text = textOf(ctx);
    this.log.push(text);
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
          history: [Message.toJSON(ctx.userMessage)],
        }),
      ),
    );
    if (text === 'ask') {
      status('TASK_STATE_INPUT_REQUIRED', {
        message: { messageId: `ask-${ctx.taskId}`, role: 'ROLE_AGENT', parts: [{ text: 'more?' }] },
      });
    } else if (text.startsWith('slow:')) {
      status('TASK_STATE_WORKING');
      const n = Number(text.slice(5));
      for (let i = 0; i < n; i++) {
        await sleep(30);
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

/** Starts the agent's gRPC server on 127.0.0.1. */
export async function startJsGrpcAgent(): Promise<JsGrpcAgent> {
  const port = await checkPortFree();
  const address = `127.0.0.1:${port}`;
  const json = {
    name: 'js-grpc-counter',
    description: 'an @a2a-js/sdk agent on its gRPC server',
    version: '1.0.0',
    supportedInterfaces: [{ url: address, protocolBinding: 'GRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'echo', description: 'echoes', tags: ['test'] }],
  };
  const card = AgentCard.fromJSON(json);
  const executions: string[] = [];
  const handler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    new CountingExecutor(executions),
    undefined,
    new InMemoryPushNotificationStore(),
    undefined,
    () => Promise.resolve({ ...card, name: 'js-grpc-counter-extended' }),
  );
  const server = new Server();
  server.addService(
    A2AService,
    grpcService({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
  );
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(address, ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())),
  );
  return {
    address,
    card: json,
    executions,
    close: () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, 200);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}
