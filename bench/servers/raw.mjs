// Raw node:http ceiling: reads the whole request body, answers a fixed 562-byte JSON-RPC body.
// Whatever a framework adds on top of this is the framework's cost.
import { createServer } from 'node:http';
import { listenAndAnnounce } from './serve-util.mjs';

// Shaped like a completed echo Task, padded to the size a2a-js answers SendMessage with (562 B).
const head =
  '{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"6c1b5f0e-3a44-4f7c-9a4f-2a1d7d3f6b21","contextId":"0d2e8b7a-1c5f-4e9b-8f3a-5b6c7d8e9f01","status":{"state":"TASK_STATE_COMPLETED"},"artifacts":[{"artifactId":"a1","parts":[{"text":"hello"}]}],"history":[{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hello"}]}],"metadata":{"pad":"';
const tail = '"}}}}';
const BODY = Buffer.from(head + 'x'.repeat(562 - head.length - tail.length) + tail);

const server = createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': BODY.length });
    res.end(BODY);
  });
});
listenAndAnnounce(server);
