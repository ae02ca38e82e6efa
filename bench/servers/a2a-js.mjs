// @a2a-js/sdk 1.3.0 baseline (a2a-js-facts.md B1): DefaultRequestHandler + InMemoryTaskStore + express
// jsonRpcHandler, all defaults, serving the echo agent of a2a-js-echo.mjs.
import express from 'express';
import { createServer } from 'node:http';
import { jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { card, echoHandler } from './a2a-js-echo.mjs';
import { listenAndAnnounce } from './serve-util.mjs';

const handler = echoHandler('JSONRPC');
const app = express();
app.use(jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
const server = createServer(app);
server.on('listening', () => {
  card.supportedInterfaces[0].url = `http://127.0.0.1:${server.address().port}/`;
});
listenAndAnnounce(server);
