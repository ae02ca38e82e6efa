/**
 * Push delivery survives kill -9 (docs/semantics.md §5, ADR 0045): a real server process commits a task's events
 * while its webhook's receiver fails, is killed with SIGKILL with every event undelivered, and a new process on
 * the same SQLite file or PostgreSQL schema delivers every event, in order, once the receiver recovers. The
 * outbox is the store: nothing lived only in the dead process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../server/push/receiver.js';
import { dropSchema, freshSchemaUrl, postgresAvailable } from './postgres-server.js';

const SCRIPT = new URL('./push-serve.mjs', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'a2a-once-push-'));
const children: ChildProcess[] = [];
let receiver: Receiver | undefined;
const schemas: string[] = [];

afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await receiver?.close();
  receiver = undefined;
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  for (const s of schemas) await dropSchema(s);
});

/** Starts the script on `store`; resolves with its URL once it listens. */
function serve(store: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [SCRIPT, store], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((ok, fail) => {
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (\S+)/.exec(out);
      if (m) ok({ url: m[1]!, child });
    });
    child.on('exit', (code) => fail(new Error(`push-serve exited (${code}): ${err}`)));
  });
}

async function killed(child: ChildProcess): Promise<void> {
  const gone = new Promise((ok) => child.once('exit', ok));
  child.kill('SIGKILL');
  await gone;
}

async function scenario(store: string): Promise<void> {
  let healthy = false;
  receiver = await startReceiver(0, () => (healthy ? { status: 200 } : { status: 503 }));
  const a = await serve(store);
  const res = await fetch(`${a.url}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: {
        message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'go' }] },
        configuration: { taskPushNotificationConfig: { id: 'c1', url: `${receiver.url}/hook`, token: 't' } },
      },
    }),
  });
  const body = (await res.json()) as { result: { task: { id: string; status: { state: string } } } };
  const taskId = body.result.task.id;
  expect(body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  // The receiver has refused at least one attempt: the events are stored, none delivered.
  await receiver.until((r) => r.received.length >= 2);
  expect(receiver.acknowledged).toHaveLength(0);
  await killed(a.child);

  healthy = true;
  await serve(store);
  // 7 events: WORKING, five artifacts, COMPLETED; each acknowledged, in order, from the first.
  await receiver.until((r) => r.firstAcks(taskId).length === 7, 20_000);
  expect(receiver.firstAcks(taskId)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  const bodies = receiver.acknowledged.map((r) => JSON.parse(r.body) as Record<string, unknown>);
  expect(Object.keys(bodies[0]!)).toEqual(['statusUpdate']);
  expect(bodies.slice(1, 6).every((b) => 'artifactUpdate' in b)).toBe(true);
  expect(JSON.stringify(bodies[6])).toContain('TASK_STATE_COMPLETED');
}

describe('push delivery after kill -9', () => {
  it('resumes on the same SQLite file', async () => {
    await scenario(`sqlite:${join(dir, 'push.db')}`);
  }, 40_000);

  it('resumes on the same PostgreSQL schema', async (t) => {
    if (!(await postgresAvailable())) t.skip();
    const { url, schema } = freshSchemaUrl('push_restart');
    schemas.push(schema);
    await scenario(url);
  }, 40_000);
});
