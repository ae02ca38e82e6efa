/**
 * Nothing acknowledged is lost to a kill -9 under load (docs/semantics.md §2 and §4, ADR 0047): a few hundred
 * concurrent keyed sends against a real `serve` process, which is killed with SIGKILL while they are in flight,
 * then restarted on the same SQLite file or PostgreSQL schema. Every send that was answered has its task in the
 * state it was answered with (or later), a retry of its key replays that task, and the agent ran no key twice.
 * This is the guarantee group commit must keep: an answer is written only after the state it reports is durable.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readEffects } from '../../src/cli/agents/index.js';
import { setKey } from '../../src/idempotency/index.js';
import type { Message, Task } from '../../src/protocol/model.js';
import { dropSchema, freshSchemaUrl, postgresAvailable } from './postgres-server.js';
import { cliBuilt, startServe, type ServeProcess } from './serve-process.js';
import { rpc, userMessage } from './wire.js';

const SENDS = 1000;
/** Sends in flight at once: as one is answered, the next goes, so a few hundred are in flight at the kill. */
const WINDOW = 200;
/** Killed once this many sends were answered: WINDOW of the rest are in flight, the others not sent yet. */
const KILL_AFTER = 300;

const pgUp = cliBuilt ? await postgresAvailable() : false;
const dir = mkdtempSync(join(tmpdir(), 'a2a-once-kill-load-'));
const schemas: string[] = [];
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  for (const s of schemas) await dropSchema(s);
});

const RANK: Record<string, number> = {
  TASK_STATE_SUBMITTED: 0,
  TASK_STATE_WORKING: 1,
  TASK_STATE_COMPLETED: 2,
};

interface Acked {
  readonly message: Message;
  readonly task: Task;
}

async function scenario(store: string, log: string): Promise<void> {
  let serve: ServeProcess | undefined = await startServe([
    '--agent',
    'echo',
    '--store',
    store,
    '--effects-log',
    log,
  ]);
  const acked: Acked[] = [];
  const messages = Array.from({ length: SENDS }, (_, i) =>
    setKey(userMessage(`load ${i}`), `kill-load-${i}-${Math.random().toString(36).slice(2, 10)}`),
  );
  let killing: Promise<void> | undefined;
  const url = serve.url;
  // A window, not one burst: the server batches whatever has arrived, and a burst of every send at once can be
  // answered in one batch before a kill lands. With a window there is always work in flight to kill.
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < messages.length && killing === undefined) {
      const message = messages[next++]!;
      try {
        const body = (await rpc(url, 'SendMessage', { message })) as { result?: { task?: Task } };
        if (!body.result?.task) continue;
        acked.push({ message, task: body.result.task });
        if (acked.length === KILL_AFTER) killing = serve!.kill9();
      } catch {
        // Cut by the kill: unacknowledged, so the server owes it nothing.
      }
    }
  };
  await Promise.allSettled(Array.from({ length: WINDOW }, lane));
  await killing;
  expect(acked.length).toBeGreaterThanOrEqual(KILL_AFTER);
  // Some sends were still unanswered at the kill, or the test proves nothing about in-flight work.
  expect(acked.length).toBeLessThan(SENDS);

  serve = await startServe(['--agent', 'echo', '--store', store, '--effects-log', log]);
  try {
    for (const { message, task } of acked) {
      const now = (await rpc(serve.url, 'GetTask', { id: task.id })) as { result?: Task };
      expect(now.result, `task ${task.id} of an answered send`).toBeDefined();
      expect(RANK[now.result!.status.state] ?? 3).toBeGreaterThanOrEqual(RANK[task.status.state] ?? 3);
      const retry = (await rpc(serve.url, 'SendMessage', { message })) as { result?: { task?: Task } };
      expect(retry.result?.task?.id).toBe(task.id);
    }
    // At most one execution per message, across both processes.
    const runs = new Map<string, number>();
    for (const e of readEffects(log)) runs.set(e.messageId, (runs.get(e.messageId) ?? 0) + 1);
    expect([...runs.values()].filter((n) => n > 1)).toEqual([]);
    for (const { message } of acked) expect(runs.get(message.messageId)).toBe(1);
  } finally {
    await serve.stop();
  }
}

describe.skipIf(!cliBuilt)('kill -9 under load, SQLite', () => {
  it('every answered send survives, replays, and ran once', async () => {
    await scenario(`sqlite:${join(dir, 'load.db')}`, join(dir, 'sqlite-effects.log'));
  }, 60_000);
});

describe.skipIf(!pgUp)('kill -9 under load, PostgreSQL', () => {
  it('every answered send survives, replays, and ran once', async () => {
    const { url, schema } = freshSchemaUrl('a2a_kill_load');
    schemas.push(schema);
    await scenario(url, join(dir, 'pg-effects.log'));
  }, 60_000);
});
