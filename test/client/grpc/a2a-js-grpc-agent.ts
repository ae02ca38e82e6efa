/**
 * An `@a2a-js/sdk@1.3.0` agent served by that SDK's own gRPC server (`@a2a-js/sdk/server/grpc`: `grpcService` on a
 * grpc-js `Server`) on loopback, for our gRPC client's interop tests. It ignores idempotency keys, as that SDK does,
 * and logs its executions. It runs the client tests' shared @a2a-js agent (`CountingExecutor` of
 * harness/a2a-js-server.ts, which answers by the message's text), with streamed chunks 30 ms apart.
 */
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { AgentCard } from '@a2a-js/sdk';
import { DefaultRequestHandler, InMemoryPushNotificationStore, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { A2AService, UserBuilder, grpcService } from '@a2a-js/sdk/server/grpc';
import { checkPortFree } from '../../server/grpc/free-port.js';
import { CountingExecutor, type Execution } from '../harness/a2a-js-server.js';

export interface JsGrpcAgent {
  /** `127.0.0.1:<port>`, as its card lists it. */
  readonly address: string;
  /** The card, as our client reads it (ProtoJSON). */
  readonly card: Record<string, unknown>;
  /** Every execution, in order. */
  readonly executions: readonly Execution[];
  close(): Promise<void>;
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
  const executions: Execution[] = [];
  const handler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    new CountingExecutor(executions, 30),
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
