// @a2a-js/sdk 1.3.0 over gRPC: its own `grpcService` adapter (`@a2a-js/sdk/server/grpc`) on a grpc-js Server, all
// defaults, over the same DefaultRequestHandler + InMemoryTaskStore echo agent as the JSON-RPC baseline
// (a2a-js-echo.mjs). Prints `grpc://127.0.0.1:PORT`.
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { A2AService, grpcService, UserBuilder } from '@a2a-js/sdk/server/grpc';
import { card, echoHandler } from './a2a-js-echo.mjs';
import { announceGrpc } from './serve-util.mjs';

const server = new Server();
server.addService(
  A2AService,
  grpcService({ requestHandler: echoHandler('GRPC'), userBuilder: UserBuilder.noAuthentication }),
);
const port = await new Promise((resolve, reject) =>
  server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) =>
    err ? reject(err) : resolve(p),
  ),
);
card.supportedInterfaces[0].url = `127.0.0.1:${port}`;
announceGrpc(port, () => server.forceShutdown());
