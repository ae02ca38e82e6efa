/**
 * The server's push delivery into the `a2a-once/webhooks` receiver, end to end on loopback (docs/semantics.md §5):
 * a real a2a-once server sends, a real receiver applies, and between them a misbehaving front (the receiver's own
 * load balancer, say) fails the first attempts, stalls one answer past the sender's timeout, and hands one event
 * to the receiver twice. Every event of every task is applied exactly once and in order; forged and stale
 * deliveries are refused.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient } from '../../src/client/index.js';
import type { A2AServer } from '../../src/server/create-server.js';
import { serveNode, type NodeServerHandle } from '../../src/server/node/index.js';
import {
  createWebhookReceiver,
  MemoryProcessedSet,
  nodeWebhookListener,
  parseWebhookSecret,
  signWebhook,
  type WebhookReceiver,
} from '../../src/webhooks/index.js';
import { FAST_PUSH, pushServer, TEST_SECRET } from '../server/push/push-server.js';
import { closeNode } from '../helpers/close-node.js';

/** What the receiver applied, in order: `taskId:seq:kind`. */
const applied: string[] = [];
let server: A2AServer;
let agent: NodeServerHandle;
let receiver: WebhookReceiver<undefined>;
let inner: Server;
let front: Server;
let frontUrl = '';
const frontLog: string[] = [];

function listen(s: Server): Promise<string> {
  return new Promise((resolve) =>
    s.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(s.address() as AddressInfo).port}`)),
  );
}

/** Forwards one request to the receiver; resolves with its status. */
function forward(innerUrl: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${innerUrl}/hook`, { method: 'POST', headers }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('error', reject);
    req.end(body);
  });
}

beforeAll(async () => {
  server = pushServer(FAST_PUSH);
  agent = await serveNode(server.fetch);
  const client = await A2AClient.fromCardUrl(agent.url);
  receiver = createWebhookReceiver({
    secret: TEST_SECRET,
    store: new MemoryProcessedSet(),
    getTask: client,
    apply: (_event, info) => void applied.push(`${info.taskId}:${info.seq}:${info.kind}`),
    onError: () => undefined,
  });
  inner = createServer(nodeWebhookListener(receiver));
  const innerUrl = await listen(inner);
  let n = 0;
  const seen = new Set<string>();
  front = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      void (async () => {
        const id = String(req.headers['webhook-id']);
        const seq = Number(id.slice(id.lastIndexOf(':') + 1));
        const attempt = n++;
        const first = !seen.has(id);
        seen.add(id);
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
        // The first three requests overall fail before reaching the receiver.
        if (attempt < 3) {
          frontLog.push(`503 ${id}`);
          return res.writeHead(503).end();
        }
        const status = await forward(innerUrl, headers, body);
        if (seq === 2 && first) {
          // Applied, but the answer stalls past the sender's timeout: the sender retries a delivered event.
          frontLog.push(`stall ${id}`);
          await new Promise((r) => setTimeout(r, FAST_PUSH.attemptTimeoutMs! + 300));
        } else if (seq === 3 && first) {
          // The front's own retry hands the receiver the same event a second time.
          frontLog.push(`twice ${id}`);
          await forward(innerUrl, headers, body);
        }
        if (!res.destroyed) res.writeHead(status).end();
      })();
    });
  });
  frontUrl = await listen(front);
});

afterAll(async () => {
  await closeNode(agent);
  await server.close();
  await new Promise<void>((r) => front.close(() => r()));
  await new Promise<void>((r) => inner.close(() => r()));
});

async function sendWithPush(text: string): Promise<string> {
  const res = await fetch(`${agent.url}/message:send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
      configuration: { taskPushNotificationConfig: { url: `${frontUrl}/hook` } },
    }),
  });
  return ((await res.json()) as { task: { id: string } }).task.id;
}

describe('push delivery into the webhook receiver, through a misbehaving front', () => {
  it('applies every event of every task exactly once and in order', async () => {
    const ids = [await sendWithPush('one'), await sendWithPush('two'), await sendWithPush('three')];
    // Every event the server stored for the task, by sequence number: what the receiver must apply.
    const stored = async (id: string) =>
      (await server.handler.options.store.readEvents({ tenant: '', owner: '' }, id, 0)).map((e) => e.seq);
    const end = Date.now() + 20_000;
    const complete = async () => {
      for (const id of ids) {
        const seqs = await stored(id);
        const mine = applied.filter((a) => a.startsWith(`${id}:`));
        if (seqs.length < 3 || mine.length < seqs.length) return false;
      }
      return true;
    };
    while (!(await complete())) {
      if (Date.now() > end) throw new Error(`not all applied: ${applied.join(' ')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    // Long enough for the stalled delivery's retry and the double hand-over to have landed.
    await new Promise((r) => setTimeout(r, FAST_PUSH.attemptTimeoutMs! + 500));
    for (const id of ids) {
      const mine = applied.filter((a) => a.startsWith(`${id}:`));
      expect(mine).toEqual((await stored(id)).map((seq) => `${id}:${seq}:event`));
    }
    // The front really misbehaved: failures, a stall and a double hand-over all happened.
    expect(frontLog.filter((l) => l.startsWith('503'))).toHaveLength(3);
    expect(frontLog.some((l) => l.startsWith('stall'))).toBe(true);
    expect(frontLog.some((l) => l.startsWith('twice'))).toBe(true);
  }, 30_000);

  it('refuses a delivery signed with another key, and one whose timestamp is stale', async () => {
    const body = JSON.stringify({
      task: { id: 'forged', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } },
    });
    const now = Math.floor(Date.now() / 1000);
    const otherKey = parseWebhookSecret(`whsec_${Buffer.alloc(32, 9).toString('base64')}`);
    const headers = (key: Uint8Array, ts: number) => ({
      'webhook-id': 'forged:1',
      'webhook-timestamp': String(ts),
      'webhook-signature': signWebhook(key, 'forged:1', ts, body),
      'a2a-once-sequence': '1',
    });
    const forged = await receiver.receive({ headers: headers(otherKey, now), body });
    expect(forged.status).toBe(401);
    const stale = await receiver.receive({
      headers: headers(parseWebhookSecret(TEST_SECRET), now - 3600),
      body,
    });
    expect(stale.status).toBe(401);
    expect(applied.some((a) => a.startsWith('forged:'))).toBe(false);
  });
});
