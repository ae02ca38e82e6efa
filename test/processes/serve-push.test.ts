/**
 * `a2a-once serve` delivers push notifications (ADR 0045) and every agent's card says so (ADR 0057): the `tck`
 * agent, and `echo`, `ask` and `slow`, whose cards declare nothing of their own. A webhook on loopback is
 * allowed only with `--allow-private-webhooks`, and deliveries are signed with the secret from the environment
 * variable `A2A_ONCE_WEBHOOK_SECRET`. A secret not in the Standard Webhooks form is a usage error that does not
 * echo it.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWebhookSecret, webhookSignatureMatches } from '../../src/webhook-wire/index.js';
import { startReceiver, type Receiver } from '../server/push/receiver.js';
import { CLI_PATH, cliBuilt, startServe, type ServeProcess } from './serve-process.js';

const SECRET = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;

describe.skipIf(!cliBuilt)('serve delivers push notifications', () => {
  let serve: ServeProcess;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    process.env.A2A_ONCE_WEBHOOK_SECRET = SECRET;
    try {
      serve = await startServe(['--agent', 'tck', '--store', 'memory', '--allow-private-webhooks']);
    } finally {
      delete process.env.A2A_ONCE_WEBHOOK_SECRET;
    }
  });
  afterAll(async () => {
    await serve?.stop();
    await receiver?.close();
  });

  async function send(url: string, webhook: string): Promise<Response> {
    return fetch(`${url}/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({
        message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hello' }] },
        configuration: { taskPushNotificationConfig: { url: webhook, token: 'tok-1' } },
      }),
    });
  }

  it('the card declares push, and every event reaches the webhook signed, in order', async () => {
    const card = (await (await fetch(`${serve.url}/.well-known/agent-card.json`)).json()) as {
      capabilities: { pushNotifications?: boolean };
    };
    expect(card.capabilities.pushNotifications).toBe(true);
    const res = await send(serve.url, `${receiver.url}/hook`);
    expect(res.status).toBe(200);
    const { task } = (await res.json()) as { task: { id: string } };
    await receiver.until(
      (r) => r.received.some((x) => x.taskId === task.id && /COMPLETED/.test(x.body)),
      10_000,
    );
    const mine = receiver.received.filter((x) => x.taskId === task.id);
    expect(mine.map((x) => x.seq)).toEqual(mine.map((_, i) => i + 1));
    const key = parseWebhookSecret(SECRET);
    for (const x of mine) {
      const id = String(x.headers['webhook-id']);
      const ts = Number(x.headers['webhook-timestamp']);
      expect(webhookSignatureMatches(key, id, ts, x.body, String(x.headers['webhook-signature']))).toBe(true);
      expect(x.headers['x-a2a-notification-token']).toBe('tok-1');
    }
  });
});

describe.skipIf(!cliBuilt)("serve: every agent's card says push, and push configs are delivered", () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it.each(['echo', 'ask', 'slow'])('--agent %s', async (agent) => {
    const serve = await startServe(['--agent', agent, '--store', 'memory', '--allow-private-webhooks']);
    try {
      const card = (await (await fetch(`${serve.url}/.well-known/agent-card.json`)).json()) as {
        capabilities: { pushNotifications?: boolean };
      };
      expect(card.capabilities.pushNotifications).toBe(true);
      const res = await fetch(`${serve.url}/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({
          message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hello' }] },
          configuration: { taskPushNotificationConfig: { url: `${receiver.url}/${agent}` } },
        }),
      });
      expect(res.status).toBe(200);
      const { task } = (await res.json()) as { task: { id: string } };
      await receiver.until((r) => r.firstAcks(task.id).includes(1), 10_000);
      expect(receiver.received.find((x) => x.taskId === task.id)?.path).toBe(`/${agent}`);
    } finally {
      await serve.stop();
    }
  });
});

describe.skipIf(!cliBuilt)('serve refuses what it cannot deliver to or sign with', () => {
  it('a webhook secret not in the whsec_ form is a usage error (exit 2) that does not echo the secret', () => {
    const r = spawnSync(
      process.execPath,
      [CLI_PATH, 'serve', '--store', 'memory', '--port', '0', '--webhook-secret', 'hunter2-hunter2'],
      {
        encoding: 'utf8',
        timeout: 10_000,
      },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--webhook-secret .*whsec_/);
    expect(r.stderr).not.toContain('hunter2');
  });

  it('without --allow-private-webhooks, a loopback webhook is refused at the send', async () => {
    const serve = await startServe(['--agent', 'tck', '--store', 'memory']);
    try {
      const res = await fetch(`${serve.url}/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: JSON.stringify({
          message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hello' }] },
          configuration: { taskPushNotificationConfig: { url: 'http://127.0.0.1:9/hook' } },
        }),
      });
      expect(res.status).toBe(400);
      expect(await res.text()).toMatch(/loopback|private|not allowed|refused/i);
    } finally {
      await serve.stop();
    }
  });
});
