/**
 * SIGTERM mid-burst (docs/guides/production.md "Shutting down", ADR 0088): two `serve` replicas on one store
 * (a SQLite file, then PostgreSQL), a burst of keyed blocking and streaming sends to replica A, A told to stop
 * while turns run. Every acknowledged task is stored in its acknowledged state or later, every key retried on B
 * replays or completes, each key's agent ran at most once (the effects logs), and A exits within its grace.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mintKey, setKey } from '../../src/idempotency/index.js';
import type { Message, Task } from '../../src/protocol/model.js';
import type { TaskState } from '../../src/protocol/task-state.js';
import { readEffects } from '../../src/cli/agents/index.js';
import { dropSchema, freshSchemaUrl, postgresAvailable } from './postgres-server.js';
import { cliBuilt, startServe, type ServeProcess } from './serve-process.js';
import { rpc, rpcStream, userMessage } from './wire.js';

const pgUp = cliBuilt ? await postgresAvailable() : false;
const GRACE_MS = 3000;
/** The fixed margin `serve` takes beyond the grace, plus process start-up noise. */
const EXIT_MARGIN_MS = 2500;

const ORDER: TaskState[] = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED'];
const rank = (s: string) => ORDER.indexOf(s as TaskState);

/** A keyed blocking send: A first; B when A refused, was gone, or answered something unfinished. */
async function blocking(a: string, b: string, message: Message): Promise<{ acked?: Task; final: Task }> {
  let acked: Task | undefined;
  try {
    const body = (await rpc(a, 'SendMessage', { message })) as { result?: { task?: Task } };
    acked = body.result?.task;
    if (acked?.status.state === 'TASK_STATE_COMPLETED') return { acked, final: acked };
  } catch {
    // Connection refused or cut: retried on B with the same key.
  }
  const body = (await rpc(b, 'SendMessage', { message })) as { result?: { task?: Task } };
  if (!body.result?.task) throw new Error(`B did not answer with a task: ${JSON.stringify(body)}`);
  return { ...(acked ? { acked } : {}), final: await settled(b, body.result.task) };
}

/** A keyed streaming send to A; a stream that ends before its final event is re-sent to B with the key. */
async function streaming(a: string, b: string, message: Message): Promise<{ acked?: Task; final: Task }> {
  let acked: Task | undefined;
  try {
    for await (const ev of rpcStream(a, 'SendStreamingMessage', { message })) {
      if ('task' in ev && ev.task) acked = ev.task;
      if ('statusUpdate' in ev && ev.statusUpdate?.status.state === 'TASK_STATE_COMPLETED')
        return { ...(acked ? { acked } : {}), final: (await getTask(a, ev.statusUpdate.taskId)) ?? acked! };
    }
  } catch {
    // Refused (an error answer), cut, or never connected.
  }
  return { ...(acked ? { acked } : {}), final: (await blocking(b, b, message)).final };
}

async function getTask(url: string, id: string): Promise<Task | undefined> {
  const body = (await rpc(url, 'GetTask', { id })) as { result?: Task };
  return body.result;
}

/** Polls B until the task completes (a turn given up by A is taken over after its lease). */
async function settled(url: string, task: Task): Promise<Task> {
  const end = Date.now() + 30_000;
  let t = task;
  while (t.status.state !== 'TASK_STATE_COMPLETED' && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 200));
    t = (await getTask(url, task.id)) ?? t;
  }
  return t;
}

function scenario(name: string, store: () => { url: string; cleanup(): Promise<void> }) {
  it(`${name}: SIGTERM mid-burst loses nothing, runs nothing twice, exits within the grace`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-once-drain-'));
    const { url: storeUrl, cleanup } = store();
    const logs = [join(dir, 'a.log'), join(dir, 'b.log')];
    const common = ['--agent', 'slow', '--delay-ms', '1200', '--store', storeUrl, '--lease', '2s'];
    let a: ServeProcess | undefined;
    let b: ServeProcess | undefined;
    try {
      a = await startServe([...common, '--effects-log', logs[0]!, '--shutdown-grace', `${GRACE_MS}ms`]);
      b = await startServe([...common, '--effects-log', logs[1]!]);
      const messages = Array.from({ length: 24 }, (_, i) => setKey(userMessage(`job ${i}`), mintKey()));
      const runs = messages.map((m, i) =>
        // Staggered, so some are admitted before the signal and some after.
        new Promise((r) => setTimeout(r, i * 60)).then(() =>
          i % 2 === 0 ? blocking(a!.url, b!.url, m) : streaming(a!.url, b!.url, m),
        ),
      );
      await new Promise((r) => setTimeout(r, 500));
      const signalled = Date.now();
      const exited = new Promise<number>((r) => a!.child.once('exit', () => r(Date.now() - signalled)));
      a.child.kill('SIGTERM');
      const outcomes = await Promise.all(runs);
      expect(await exited).toBeLessThan(GRACE_MS + EXIT_MARGIN_MS);
      for (const [i, o] of outcomes.entries()) {
        expect(o.final.status.state, `job ${i}`).toBe('TASK_STATE_COMPLETED');
        if (o.acked) {
          expect(o.final.id).toBe(o.acked.id);
          const stored = await getTask(b.url, o.acked.id);
          expect(rank(stored!.status.state)).toBeGreaterThanOrEqual(rank(o.acked.status.state));
        }
      }
      const effects = [...readEffects(logs[0]!), ...readEffects(logs[1]!)];
      for (const m of messages) {
        const text = (m.parts[0] as { text: string }).text;
        expect(
          effects.filter((e) => e.text.includes(text) && e.text.endsWith(text)).length,
        ).toBeLessThanOrEqual(1);
      }
      expect(a.stderr()).toMatch(/draining/);
    } finally {
      await Promise.all([a?.kill9(), b?.stop()]);
      await cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
}

describe.skipIf(!cliBuilt)('graceful shutdown of a replica', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  scenario('SQLite', () => {
    const d = mkdtempSync(join(tmpdir(), 'a2a-once-drain-db-'));
    dirs.push(d);
    return { url: `sqlite:${join(d, 'tasks.db')}`, cleanup: () => Promise.resolve() };
  });
  if (pgUp)
    scenario('PostgreSQL', () => {
      const { url, schema } = freshSchemaUrl('a2a_drain');
      return { url, cleanup: () => dropSchema(schema) };
    });
});
