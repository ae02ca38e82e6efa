/**
 * examples/push-notifications.ts, run as it is: a real agent delivers to a real receiver on 127.0.0.1 through a
 * recording front (a plain forwarder, one per webhook, so the test sees each delivery as the receiver got it).
 * Every event is applied once and in order though both webhooks deliver it; an exact replay of a delivery is
 * acknowledged as a duplicate and applied no more; a bad signature is refused; during a rotation a delivery
 * signed with the previous secret is accepted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  newWebhookSecret,
  placeOrder,
  startPushSetup,
  untilApplied,
  type PushSetup,
} from '../../examples/push-notifications.js';
import { parseWebhookSecret, signWebhook } from '../../src/webhooks/index.js';

/** One delivery as it reached the receiver. */
interface Delivery {
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** POSTs `body` with `headers` to `url`; resolves with the status and the answer's JSON. */
function post(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as unknown }));
    });
    req.once('error', reject);
    req.end(body);
  });
}

/** Headers of the connection, not of the delivery: each request makes its own. */
const HOP_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding']);

function plain(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (typeof v === 'string' && !HOP_HEADERS.has(k)) out[k] = v;
  return out;
}

/** A forwarder to `target` that records every delivery it passes on. */
async function recordingFront(target: string, log: Delivery[]): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const headers = plain(req.headers);
      log.push({ headers, body });
      void post(target, headers, body).then(
        (answer) =>
          res
            .writeHead(answer.status, { 'content-type': 'application/json' })
            .end(JSON.stringify(answer.json)),
        () => res.writeHead(502).end(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, server };
}

describe('example: push notifications into a receiver with a SQLite processed-set', () => {
  const previous = newWebhookSecret();
  const current = newWebhookSecret();
  let dir: string;
  let setup: PushSetup;
  const inline: Delivery[] = [];
  const created: Delivery[] = [];
  let fronts: Server[] = [];
  let taskId: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'a2a-once-push-example-'));
    setup = await startPushSetup(join(dir, 'receiver.db'), { current, previous });
    const a = await recordingFront(setup.webhookUrl, inline);
    const b = await recordingFront(setup.webhookUrl, created);
    fronts = [a.server, b.server];
    taskId = await placeOrder(setup.agentUrl, { inlineUrl: a.url, createdUrl: b.url, token: setup.token });
    await untilApplied(setup, taskId);
  });

  afterAll(async () => {
    await setup.close();
    for (const f of fronts) await new Promise<void>((r) => f.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies every stored event of the task once, in order, though both webhooks deliver it', async () => {
    const stored = await setup.server.handler.options.store.readEvents({ tenant: '', owner: '' }, taskId, 0);
    const seqs = stored.map((e) => e.seq);
    expect(seqs).toEqual([1, 2, 3, 4, 5]);
    const rows = setup.applied().filter((e) => e.taskId === taskId);
    expect(rows.map((e) => [e.seq, e.kind])).toEqual(seqs.map((s) => [s, 'event']));
    expect(rows.map((e) => e.what)).toEqual([
      'status TASK_STATE_WORKING',
      'status TASK_STATE_INPUT_REQUIRED',
      'status TASK_STATE_WORKING',
      'artifact receipt',
      'status TASK_STATE_COMPLETED',
    ]);
    // The created config delivers the task's events too, from its first one on (docs/semantics.md §5): let it
    // finish, then nothing was applied a second time.
    const end = Date.now() + 10_000;
    while (created.length < seqs.length && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
    const ids = (log: Delivery[]) => new Set(log.map((d) => d.headers['webhook-id']));
    expect(ids(inline)).toEqual(new Set(seqs.map((s) => `${taskId}:${s}`)));
    expect(ids(created)).toEqual(ids(inline));
    expect(setup.applied().filter((e) => e.taskId === taskId)).toEqual(rows);
    // Signed with the current secret, carrying the token: what the receiver checks.
    expect(inline[0]!.headers['webhook-signature']).toMatch(/^v1,/);
    expect(inline[0]!.headers['x-a2a-notification-token']).toBe(setup.token);
  });

  it('an exact replay of a delivery the receiver got is a duplicate: acknowledged, not applied', async () => {
    const before = setup.applied();
    const replayed = inline[1]!;
    const answer = await post(setup.webhookUrl, replayed.headers, replayed.body);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ outcome: 'duplicate', taskId, seq: 2 });
    expect(setup.applied()).toEqual(before);
  });

  it('refuses a delivery signed with another secret, or whose body was changed, and applies nothing', async () => {
    const before = setup.applied();
    const d = inline[2]!;
    const id = d.headers['webhook-id']!;
    const ts = Number(d.headers['webhook-timestamp']);
    const forged = signWebhook(parseWebhookSecret(newWebhookSecret()), id, ts, d.body);
    const wrongKey = await post(setup.webhookUrl, { ...d.headers, 'webhook-signature': forged }, d.body);
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.json).toMatchObject({ error: { reason: 'SIGNATURE_MISMATCH' } });
    const changed = d.body.replace('TASK_STATE_WORKING', 'TASK_STATE_FAILED');
    expect(changed).not.toBe(d.body);
    const tampered = await post(setup.webhookUrl, d.headers, changed);
    expect(tampered.status).toBe(401);
    expect(setup.applied()).toEqual(before);
  });

  it('during a rotation, a delivery signed with the previous secret is accepted', async () => {
    const d = inline[3]!;
    const id = d.headers['webhook-id']!;
    const ts = Math.floor(Date.now() / 1000);
    const byPrevious = signWebhook(parseWebhookSecret(previous), id, ts, d.body);
    const answer = await post(
      setup.webhookUrl,
      { ...d.headers, 'webhook-timestamp': String(ts), 'webhook-signature': byPrevious },
      d.body,
    );
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ outcome: 'duplicate', seq: 4 });
  });
});
