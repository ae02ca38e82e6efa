import { createA2AServer } from '/work/main/dist/server/index.js';
import { createEchoAgent } from '/work/main/dist/cli/agents/echo.js';
import { MemoryTaskStore } from '/work/main/dist/store/memory/index.js';
import { a2aGrpcService } from '/work/main/dist/server/grpc/index.js';
import { encodeProto, decodeProto } from '/work/main/dist/protocol/grpc/index.js';
import { Metadata } from '@grpc/grpc-js';
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { mintKey, IDEMPOTENCY_METADATA_KEY, IDEMPOTENCY_EXTENSION_URI } from '/work/main/dist/idempotency/index.js';
const agent = createEchoAgent();
const a2a = createA2AServer({ agent: agent.executor, card: agent.card, store: new MemoryTaskStore(), maxKeysPerScope: 10_000_000 });
const svc = a2aGrpcService(a2a);
const msg = () => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hello from the a2a benchmark!' }], metadata: { [IDEMPOTENCY_METADATA_KEY]: mintKey() }, extensions: [IDEMPOTENCY_EXTENSION_URI] });
function grpcOnce() {
  return new Promise((resolve, reject) => {
    const call = new EventEmitter();
    call.request = Buffer.from(encodeProto('SendMessageRequest', { message: msg() }));
    const md = new Metadata(); md.set('a2a-version', '1.0'); call.metadata = md;
    call.getDeadline = () => Date.now() + 10000;
    call.sendMetadata = () => {};
    svc.implementation.SendMessage(call, (err, bytes) => (err ? reject(err) : resolve(bytes)));
  });
}
async function rpcOnce() {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: msg() } });
  const res = await a2a.fetch(new Request('http://127.0.0.1/', { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body }));
  return res.text();
}
async function bench(name, f, n) {
  for (let i = 0; i < 500; i++) await f();
  const c0 = process.cpuUsage(); const t0 = performance.now();
  for (let i = 0; i < n; i++) await f();
  const c = process.cpuUsage(c0); 
  console.log(name, (((c.user + c.system)) / n).toFixed(0), 'us CPU/call', ((performance.now() - t0) * 1000 / n).toFixed(0), 'us wall');
}
const which = process.argv[2] ?? 'both';
for (let r = 0; r < 2; r++) {
  if (which !== 'rpc') await bench('grpc', grpcOnce, 3000);
  if (which !== 'grpc') await bench('jsonrpc', rpcOnce, 3000);
}
process.exit(0);
