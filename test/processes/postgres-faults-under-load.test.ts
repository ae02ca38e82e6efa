/**
 * Real connection faults under load (docs/semantics.md §2 and §4, ADR 0063): a few hundred keyed blocking sends
 * through a real `serve` process whose PostgreSQL connections go through a loopback proxy that, mid-load, cuts
 * every connection, stalls every connection (open and new) for a while, and cuts again. After healing, every key
 * is sent again. What must hold, whatever the faults did:
 *
 * - every send answered with a task has that task in the state it was answered with, or later;
 * - every key's retry gets a task, the one it was answered with if it was (a replay);
 * - each key's agent ran at most once (counted outside the store, in the agent's effects log);
 * - a task ends FAILED only if its agent ran (the echo agent never fails: a task whose agent never started was
 *   not "lost", it was never begun);
 * - no task is left SUBMITTED or WORKING once its lease (2 s) has lapsed and recovery has had its turn;
 * - the server keeps serving: alive, and a new send completes.
 *
 * A fault can hit a write whose acknowledgement is lost (the COMMIT applied, its answer cut); those are the
 * store's lost-acknowledgement cases, which its write paths must make safe to retry.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readEffects } from '../../src/cli/agents/index.js';
import { setKey } from '../../src/idempotency/index.js';
import type { Message, Task } from '../../src/protocol/model.js';
import { postgresAvailable } from './postgres-server.js';
import { startProxiedServe, timedSend, type ProxiedServe, type TimedAnswer } from './proxied-postgres.js';
import { cliBuilt } from './serve-process.js';
import { rpc, userMessage } from './wire.js';

const pgUp = cliBuilt ? await postgresAvailable() : false;

const SENDS = 300;
/** Sends in flight at once: as one is answered, the next goes. */
const WINDOW = 40;
/** A send's own deadline: far above what a fault costs (a few 1.5 s query timeouts), far below the test's. */
const DEADLINE_MS = 30_000;
/** The worker lease of the server, and how long recovery gets after healing to take over what a fault left. */
const LEASE = '2s';
const SETTLE_MS = 20_000;

/** Answers after which every open connection is cut. */
const CUT_AT = [40, 80, 160, 240, 280];

const RANK: Record<string, number> = {
  TASK_STATE_SUBMITTED: 0,
  TASK_STATE_WORKING: 1,
};
const rank = (t: Task) => RANK[t.status.state] ?? 2;

let running: ProxiedServe | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** Sends every message through `WINDOW` lanes; `onAnswer` sees each answer with the count so far. */
async function sendAll(
  url: string,
  messages: readonly Message[],
  onAnswer: (answered: number) => void = () => undefined,
): Promise<TimedAnswer[]> {
  const answers: TimedAnswer[] = new Array<TimedAnswer>(messages.length);
  let next = 0;
  let answered = 0;
  const lane = async () => {
    while (next < messages.length) {
      const i = next++;
      answers[i] = await timedSend(url, messages[i]!, DEADLINE_MS);
      onAnswer(++answered);
    }
  };
  await Promise.all(Array.from({ length: WINDOW }, lane));
  return answers;
}

function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!pgUp)('PostgreSQL connections cut and stalled under load', () => {
  it('keeps every acknowledged send, replays every key, runs none twice, strands no task', async () => {
    running = await startProxiedServe('a2a_faults', ['--lease', LEASE]);
    const { proxy, serve, effectsLog } = running;
    const messages = Array.from({ length: SENDS }, (_, i) =>
      setKey(userMessage(`fault ${i}`), `faults-${i}-${Math.random().toString(36).slice(2, 12)}`),
    );
    const faults: Promise<void>[] = [];
    const answers = await sendAll(serve.url, messages, (answered) => {
      if (CUT_AT.includes(answered)) proxy.cut();
      if (answered === 120) {
        // Everything stalls, new connections too, as in a partition; it heals after a while.
        proxy.stall({ newConnections: true });
        faults.push(pause(2_500).then(() => proxy.heal()));
      }
      if (answered === 200) {
        // Only the open connections stall, as when a primary's old connections hang after a failover.
        proxy.stall();
        faults.push(pause(2_500).then(() => proxy.heal()));
      }
    });
    await Promise.all(faults);
    proxy.heal();
    const tally = {
      tasks: answers.filter((a) => a.task).length,
      errors: answers.filter((a) => a.error).length,
      unanswered: answers.filter((a) => a.unanswered).length,
      slowestMs: Math.round(Math.max(...answers.map((a) => a.ms))),
      states: countBy(answers.map((a) => a.task?.status.state ?? a.error?.message ?? 'unanswered')),
      connections: proxy.connections().length,
    };
    if (process.env.A2A_ONCE_PRINT) console.log('first attempts', tally);
    // The faults landed on sends in flight: some were not answered with a task, and every send got an answer.
    expect(tally.tasks).toBeGreaterThan(0);
    expect(tally.unanswered).toBe(0);

    // Every acknowledged task is there, in its acknowledged state or later.
    for (const [i, a] of answers.entries()) {
      if (!a.task) continue;
      const now = (await rpc(serve.url, 'GetTask', { id: a.task.id })) as { result?: Task };
      expect(now.result, `task of answered send ${i}`).toBeDefined();
      expect(rank(now.result!)).toBeGreaterThanOrEqual(rank(a.task));
    }

    // Every key again, after healing: each gets a task, its first answer's if it had one.
    const retries = await sendAll(serve.url, messages);
    for (const [i, r] of retries.entries()) {
      expect(r.task, `retry of send ${i}: ${JSON.stringify(r)}`).toBeDefined();
      const first = answers[i]!.task;
      if (first) expect(r.task!.id, `retry of send ${i} replays`).toBe(first.id);
    }

    if (process.env.A2A_ONCE_PRINT)
      console.log(
        'retries',
        countBy(retries.map((r) => r.task?.status.state ?? r.error?.message ?? 'unanswered')),
      );
    // Each key's agent ran at most once.
    const runs = new Map<string, number>();
    for (const e of readEffects(effectsLog)) runs.set(e.messageId, (runs.get(e.messageId) ?? 0) + 1);
    expect([...runs.entries()].filter(([, n]) => n > 1)).toEqual([]);
    // A task that ended FAILED had its agent run: the echo agent never fails, so only a turn whose progress could
    // not be saved may end so, never a task whose agent was not started at all (docs/semantics.md §4).
    const failedUnrun = retries
      .map((r, i) => ({
        i,
        state: r.task!.status.state,
        messageId: messages[i]!.messageId,
        why: r.task!.status.message?.parts.map((p) => ('text' in p ? p.text : '')).join(''),
      }))
      .filter((x) => x.state === 'TASK_STATE_FAILED' && !runs.has(x.messageId));
    expect(failedUnrun, 'tasks FAILED although their agent never ran').toEqual([]);

    // Nothing stays SUBMITTED or WORKING once its lease lapsed and recovery had its turn.
    const ids = [...new Set(retries.map((r) => r.task!.id))];
    const deadline = Date.now() + SETTLE_MS;
    let open: string[] = ids;
    while (open.length > 0 && Date.now() < deadline) {
      const states = await Promise.all(
        open.map(async (id) => ((await rpc(serve.url, 'GetTask', { id })) as { result?: Task }).result),
      );
      open = open.filter((_, j) => !states[j] || rank(states[j]) < 2);
      if (open.length > 0) await pause(500);
    }
    expect(open, 'tasks still SUBMITTED or WORKING after their lease').toEqual([]);

    // The server keeps serving.
    expect(serve.child.exitCode).toBeNull();
    const fresh = await timedSend(
      serve.url,
      setKey(userMessage('after'), `faults-after-${Date.now()}`),
      10_000,
    );
    expect(fresh.task?.status.state).toBe('TASK_STATE_COMPLETED');
  }, 180_000);
});
