// The gRPC floors: a server that reads the SendMessage request and answers one fixed, pre-encoded
// SendMessageResponse (a COMPLETED echo task) with no A2A work at all. argv[2] picks the server:
//   grpc-js  a grpc-js Server with pass-through (de)serializers: what grpc-js itself costs a unary call;
//   http2    gRPC's framing written on node:http2 (5-byte length prefix, grpc-status in the trailers): what any
//            gRPC server on Node's HTTP/2 costs, the floor under every gRPC edge, grpc-js or not.
// Prints `grpc://127.0.0.1:PORT`.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http2';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { encodeProto } from '../../dist/protocol/grpc/index.js';
import { announceGrpc } from './serve-util.mjs';

const TEXT = 'hello from the a2a benchmark!';
const ANSWER = Buffer.from(
  encodeProto('SendMessageResponse', {
    task: {
      id: randomUUID(),
      contextId: randomUUID(),
      status: { state: 'TASK_STATE_COMPLETED', timestamp: new Date().toISOString() },
      history: [{ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: TEXT }] }],
      artifacts: [{ artifactId: randomUUID(), parts: [{ text: TEXT }] }],
    },
  }),
);
const PATH = '/lf.a2a.v1.A2AService/SendMessage';

if (process.argv[2] === 'http2') {
  const framed = Buffer.alloc(5 + ANSWER.length);
  framed.writeUInt32BE(ANSWER.length, 1);
  ANSWER.copy(framed, 5);
  const server = createServer();
  server.on('stream', (stream, headers) => {
    if (headers[':path'] !== PATH) {
      stream.respond(
        { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '12' },
        { endStream: true },
      );
      return;
    }
    stream.on('data', () => {}); // read the whole request, as a server must
    stream.on('end', () => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(framed);
    });
  });
  server.listen(0, '127.0.0.1', () => announceGrpc(server.address().port, () => server.close()));
} else {
  const same = (b) => b;
  const server = new Server();
  server.addService(
    {
      SendMessage: {
        path: PATH,
        requestStream: false,
        responseStream: false,
        requestSerialize: same,
        requestDeserialize: same,
        responseSerialize: same,
        responseDeserialize: same,
      },
    },
    { SendMessage: (_call, callback) => callback(null, ANSWER) },
  );
  const port = await new Promise((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  announceGrpc(port, () => server.forceShutdown());
}
