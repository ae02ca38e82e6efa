/**
 * Push notifications end to end, on one machine (docs/guides/push-notifications.md, docs/semantics.md §5):
 *
 * - an a2a-once agent with push on, signing with a Standard Webhooks secret, allowed to call private addresses
 *   because this is local development (the webhook listens on 127.0.0.1);
 * - a webhook receiver (`a2a-once/webhooks`) on 127.0.0.1 that applies each event once and in order, keeping its
 *   processed-set in SQLite and writing its effect (a row of `order_events`) in the same transaction, so a crash
 *   between the two cannot apply an event twice or lose one; it accepts two secrets, as during a rotation;
 * - an `A2AClient` that sends a keyed order with a webhook inline, then registers a second webhook on the same
 *   task with CreateTaskPushNotificationConfig, and confirms the order.
 *
 * Both webhooks lead to the same receiver here, so every event arrives twice (once per config) and is applied
 * once. Run it: `npm run build && npx vite-node examples/push-notifications.ts --main`. Tested in
 * test/examples/push-notifications.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { mintKey, type StreamResponse } from 'a2a-once';
import { A2AClient } from 'a2a-once/client';
import { createA2AServer, type A2AServer } from 'a2a-once/server';
import { serveNode } from 'a2a-once/server/node';
import {
  createWebhookReceiver,
  nodeWebhookListener,
  SqliteProcessedSet,
  type WebhookReceiver,
} from 'a2a-once/webhooks';

/** A fresh Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** One row the receiver's effect wrote: what an event said, in the order it was applied. */
export interface AppliedEvent {
  readonly taskId: string;
  readonly seq: number;
  readonly kind: 'event' | 'snapshot';
  readonly what: string;
}

/** The secrets in play: the server signs with `current`; the receiver accepts it and `previous`. */
export interface Secrets {
  readonly current: string;
  readonly previous?: string;
}

/** A running agent and receiver. */
export interface PushSetup {
  /** The agent's URL (its card is at `/.well-known/agent-card.json`). */
  readonly agentUrl: string;
  /** Where the receiver listens. */
  readonly webhookUrl: string;
  /** The token both webhooks are registered with; the receiver refuses a delivery without it. */
  readonly token: string;
  readonly server: A2AServer;
  readonly receiver: WebhookReceiver<Database.Database>;
  /** Every row of `order_events`, in the order written. */
  applied(): AppliedEvent[];
  close(): Promise<void>;
}

/** A line for the event, as the effect records it. */
function describe(event: StreamResponse): string {
  if ('task' in event) return `task ${event.task.status.state}`;
  if ('statusUpdate' in event) return `status ${event.statusUpdate.status.state}`;
  if ('artifactUpdate' in event) return `artifact ${event.artifactUpdate.artifact.name ?? ''}`;
  return 'message';
}

/**
 * Starts the agent (asks to confirm an order, then completes it with a receipt) and the receiver, whose
 * processed-set and effect table live in the SQLite file `dbFile`.
 */
export async function startPushSetup(dbFile: string, secrets: Secrets): Promise<PushSetup> {
  const server = createA2AServer({
    card: { name: 'orders', description: 'Takes an order, asks to confirm it, then confirms it' },
    // Push is on by default; the card says `pushNotifications: true` because the server delivers.
    push: {
      signingSecret: secrets.current,
      // Local development: the webhook is on 127.0.0.1. Never set this where callers choose webhook URLs
      // and the network behind the server is not theirs to reach.
      allowPrivateTargets: true,
    },
    agent: {
      async execute(ctx) {
        if (!ctx.isContinuation) {
          await ctx.working('checking stock');
          return ctx.requireInput(`confirm the order "${ctx.userText}"?`);
        }
        await ctx.artifact({ name: 'receipt', parts: [{ text: `order confirmed (${ctx.userText})` }] });
        await ctx.complete();
      },
    },
  });
  const agentHttp = await serveNode(server.fetch);
  const agent = await A2AClient.fromCardUrl(agentHttp.url);

  // The receiver's own connection: what `apply` writes through `info.tx` commits with the processed-set's record.
  const db = new Database(dbFile);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(`CREATE TABLE IF NOT EXISTS order_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, what TEXT NOT NULL
  )`);
  const token = randomBytes(16).toString('hex');
  const receiver = createWebhookReceiver<Database.Database>({
    // During a rotation both are accepted; drop `previous` once no sender signs with it.
    secret: secrets.previous === undefined ? secrets.current : [secrets.current, secrets.previous],
    token,
    store: new SqliteProcessedSet(db),
    // Where a gap (events missing past the reorder window) is repaired from: GetTask on the agent.
    getTask: agent,
    apply(event, info) {
      info.tx
        .prepare('INSERT INTO order_events (task_id, seq, kind, what) VALUES (?, ?, ?, ?)')
        .run(info.taskId, info.seq, info.kind, describe(event));
    },
  });
  const receiverHttp = createServer(nodeWebhookListener(receiver));
  await new Promise<void>((resolve) => receiverHttp.listen(0, '127.0.0.1', resolve));
  const { port } = receiverHttp.address() as AddressInfo;

  // Reads on a connection of their own, never inside a transaction of the receiver's.
  const reader = new Database(dbFile, { readonly: true });
  const rows = reader.prepare('SELECT task_id, seq, kind, what FROM order_events ORDER BY id');
  return {
    agentUrl: agentHttp.url,
    webhookUrl: `http://127.0.0.1:${port}/webhooks/a2a`,
    token,
    server,
    receiver,
    applied: () =>
      (rows.all() as { task_id: string; seq: number; kind: 'event' | 'snapshot'; what: string }[]).map(
        (r) => ({ taskId: r.task_id, seq: r.seq, kind: r.kind, what: r.what }),
      ),
    close: async () => {
      await agentHttp.close();
      await server.close();
      await new Promise<void>((resolve) => {
        receiverHttp.close(() => resolve());
        receiverHttp.closeAllConnections();
      });
      reader.close();
      db.close();
    },
  };
}

/**
 * The client's side: a keyed order with a webhook inline (`inlineUrl`), a second webhook registered on the task
 * once it exists (`createdUrl`), then the confirmation. Resolves with the task's id once it is COMPLETED.
 */
export async function placeOrder(
  agentUrl: string,
  webhooks: { readonly inlineUrl: string; readonly createdUrl: string; readonly token: string },
): Promise<string> {
  const client = await A2AClient.fromCardUrl(agentUrl);
  // Keep the key with the order: sending again with it replays this task instead of placing a second order.
  const asked = await client.send('3 lanterns', {
    key: mintKey(),
    configuration: { taskPushNotificationConfig: { url: webhooks.inlineUrl, token: webhooks.token } },
  });
  if (!('task' in asked) || asked.task.status.state !== 'TASK_STATE_INPUT_REQUIRED')
    throw new Error('the agent did not ask to confirm the order');
  const taskId = asked.task.id;
  // Named by an id, so creating it again (a retry, a second run) replaces it rather than adding a third.
  await client.createPushConfig({ taskId, id: 'audit', url: webhooks.createdUrl, token: webhooks.token });
  const confirmed = await client.send({ taskId, parts: [{ text: 'yes' }] }, { key: mintKey() });
  if (!('task' in confirmed) || confirmed.task.status.state !== 'TASK_STATE_COMPLETED')
    throw new Error('the order was not confirmed');
  return taskId;
}

/** Resolves once the receiver applied the COMPLETED status of `taskId`; rejects after `timeoutMs`. */
export async function untilApplied(setup: PushSetup, taskId: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!setup.applied().some((e) => e.taskId === taskId && e.what === 'status TASK_STATE_COMPLETED')) {
    if (Date.now() > end) throw new Error(`the receiver did not apply the end of task ${taskId} in time`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-once-push-'));
  const setup = await startPushSetup(join(dir, 'receiver.db'), {
    current: newWebhookSecret(),
    previous: newWebhookSecret(),
  });
  try {
    const taskId = await placeOrder(setup.agentUrl, {
      inlineUrl: setup.webhookUrl,
      createdUrl: setup.webhookUrl,
      token: setup.token,
    });
    await untilApplied(setup, taskId);
    for (const e of setup.applied()) console.log(`${e.seq} ${e.kind} ${e.what}`);
  } finally {
    await setup.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// Runs only when asked (`--main`): the test imports this file for its functions.
if (process.argv.includes('--main')) await main();
