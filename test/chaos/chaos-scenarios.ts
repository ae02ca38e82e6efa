/**
 * The chaos scenarios (ADR 0041), registered over one store URL so SQLite and PostgreSQL run the same checks.
 * A real `a2a-once serve --agent ledger` is killed at an exact point by its test-only crash hook, never by
 * timing luck; then two replicas on the same store, racing to recover the task and each sent the same keyed
 * retry several times at once (or the a2a-once client's own retry, across a restart on the same port), give:
 * - exactly one effect per key at the downstream ledger (which deduplicates on the step's side-effect key,
 *   ADR 0038), and no second task for the send (one ledger entry for its text);
 * - a task in a definite state: COMPLETED, the ledger agent being resumable (ADR 0037);
 * - an answer for every caller: the same completed task, with the receipt of the one ledger entry.
 * And a frozen worker (SIGSTOP at its step, past its lease) that wakes after another replica recovered the task
 * has every write refused and makes no effect (docs/semantics.md §4).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { receiptText } from '../../src/cli/agents/index.js';
import { A2AClient, cardUrlOf, fetchAgentCard, RetryBudget } from '../../src/client/index.js';
import { mintKey, setKey } from '../../src/idempotency/index.js';
import type { Message, Task } from '../../src/protocol/model.js';
import { getTask, until } from '../processes/lost-replica.js';
import { rpc, sendForTask, userMessage } from '../processes/wire.js';
import { crashLine, startChaosServe, type ChaosServe } from './chaos-serve.js';
import { startLedger, type LedgerService } from './ledger-service.js';

/** The crash points a send is killed at, and how many posts the ledger then sees under the step's key. */
const CRASHES = [
  // The task and key exist, the agent never started: the resumed turn makes the only post.
  { point: 'after-claim', posts: 1, resumed: 1 },
  // In the step, before its attempt was recorded: nothing of the step is stored, the resumed turn posts once.
  { point: 'before-effect', posts: 1, resumed: 1 },
  // The attempt was recorded, the post never made: the resumed turn makes attempt 2, the only post.
  { point: 'attempt-started', posts: 1, resumed: 1 },
  // The post happened, its result was not recorded: the resumed turn posts again, the ledger deduplicates.
  { point: 'after-effect', posts: 2, resumed: 1 },
  // The task completed, the answer was never written: the retry is a replay, nothing runs again.
  { point: 'before-answer', posts: 1, resumed: 0 },
] as const;

/**
 * At-most-once posts killed mid-step (ADR 0123): the resumed turn does not post again under the interrupted
 * attempt; it asks the ledger by the key, once, and posts only if the ledger never got it.
 */
const AT_MOST_ONCE_CRASHES = [
  // Before the attempt was recorded: no attempt was interrupted, so the resumed turn posts without asking.
  { point: 'before-effect', posts: 1, lookups: 0 },
  // The attempt was recorded, the post never made: the ledger has nothing, so the reconciling step posts once.
  { point: 'attempt-started', posts: 1, lookups: 1 },
  // The post was made, its result not recorded: the ledger has it, and nothing is posted again.
  { point: 'after-effect', posts: 1, lookups: 1 },
] as const;

/** Concurrent keyed retries per restarted replica. */
const RETRIES = 4;

/** The takeover messages recovery wrote into the task's history. */
function resumes(task: Task): number {
  return (task.history ?? []).filter((m) => m.metadata?.['a2a-once/recovery'] === 'resumed').length;
}

/** The task's one receipt artifact text. */
function receiptOf(task: Task): string | undefined {
  const part = task.artifacts?.[0]?.parts[0];
  return part && 'text' in part ? part.text : undefined;
}

/** A store for one scenario: its URL, and how to remove it afterwards. */
export interface ChaosStore {
  readonly url: string;
  readonly remove: () => Promise<void>;
}

/**
 * Registers the scenarios; `newStore(dir)` gives a store of its own to each scenario (a task a failed scenario
 * leaves behind would otherwise be recovered by the next scenario's servers, crash points and all).
 */
export function chaosScenarios(newStore: (dir: string) => ChaosStore): void {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-once-chaos-'));
  let store: ChaosStore | undefined;
  let ledger: LedgerService;
  const started: ChaosServe[] = [];
  const start = async (crashAt?: string, port?: number, semantics?: 'at-most-once') => {
    store ??= newStore(dir);
    const s = await startChaosServe({
      store: store.url,
      ledgerUrl: ledger.url,
      ...(crashAt ? { crashAt } : {}),
      ...(port !== undefined ? { port } : {}),
      ...(semantics ? { semantics } : {}),
    });
    started.push(s);
    return s;
  };

  beforeAll(async () => {
    ledger = await startLedger();
  });
  afterEach(async () => {
    await Promise.all(started.splice(0).map((s) => s.dispose()));
    const used = store;
    store = undefined;
    await used?.remove();
  });
  afterAll(async () => {
    await ledger.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The checks every scenario ends with: one task, completed, one ledger entry, its receipt answered. */
  const expectOnce = (task: Task, text: string, posts: number) => {
    const key = `${task.id}:ledger-post`;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const mine = ledger.entries().filter((e) => e.text === text);
    expect(mine).toEqual([{ entry: expect.any(String) as string, key, text }]);
    expect(ledger.requestsFor(key)).toBe(posts);
    expect(receiptOf(task)).toBe(receiptText({ entry: mine[0]!.entry }));
  };

  it.each(CRASHES)(
    'a server killed at $point: racing keyed retries on two restarted replicas get the task completed, one effect',
    async ({ point, posts, resumed }) => {
      const text = `chaos ${point}`;
      const message: Message = setKey(userMessage(text), mintKey());
      const first = await start(point);
      // A blocking send: its connection drops as the process dies at the point.
      await expect(rpc(first.url, 'SendMessage', { message })).rejects.toThrow();
      expect(await first.ended).toEqual({ code: null, signal: 'SIGKILL' });
      expect(first.stderr()).toContain(crashLine(point));

      // The same store, no crash point, two replicas racing to recover the task: the retry by hand (same key,
      // same message), sent RETRIES times to each of them at once.
      const replicas = [await start(), await start()];
      const answers = await Promise.all(
        replicas.flatMap((r) => Array.from({ length: RETRIES }, () => sendForTask(r.url, message))),
      );
      const task = answers[0]!;
      for (const answer of answers) expect(answer).toEqual(task);
      expectOnce(task, text, posts);
      expect(resumes(task)).toBe(resumed);
      // Settled for good: another recovery pass on each replica finds nothing to take over.
      await new Promise((r) => setTimeout(r, 700));
      for (const r of replicas) expect(await getTask(r.url, task.id)).toEqual(task);
      expect(ledger.requestsFor(`${task.id}:ledger-post`)).toBe(posts);
    },
    30_000,
  );

  it.each(AT_MOST_ONCE_CRASHES)(
    'an at-most-once post killed at $point: the resumed turn asks the ledger and posts $posts time(s) in all',
    async ({ point, posts, lookups }) => {
      const text = `chaos at-most-once ${point}`;
      const message: Message = setKey(userMessage(text), mintKey());
      const before = ledger.lookupCount();
      const first = await start(point, undefined, 'at-most-once');
      await expect(rpc(first.url, 'SendMessage', { message })).rejects.toThrow();
      expect(await first.ended).toEqual({ code: null, signal: 'SIGKILL' });
      expect(first.stderr()).toContain(crashLine(point));
      const replicas = [
        await start(undefined, undefined, 'at-most-once'),
        await start(undefined, undefined, 'at-most-once'),
      ];
      const answers = await Promise.all(
        replicas.flatMap((r) => Array.from({ length: RETRIES }, () => sendForTask(r.url, message))),
      );
      const task = answers[0]!;
      for (const answer of answers) expect(answer).toEqual(task);
      // Never a second post under the key: the interrupted attempt is not run again, the ledger is asked.
      expectOnce(task, text, posts);
      expect(ledger.lookupCount() - before).toBe(lookups);
      expect(resumes(task)).toBe(1);
    },
    30_000,
  );

  it("the a2a-once client's own retry carries a keyed send across a server killed after its effect", async () => {
    const text = 'chaos client retry';
    const first = await start('after-effect');
    // Retries close together, and enough of them to span the restart below, however slow the machine is at
    // starting a process: the attempt limit and the shared retry budget (which by default stops after ten
    // failures in a row, about a second at this backoff) both sized for ten seconds of refused connections.
    const cardUrl = cardUrlOf(first.url);
    const client = A2AClient.fromCard(await fetchAgentCard(cardUrl), {
      cardUrl,
      retry: {
        maxAttempts: 100,
        backoff: { initialMs: 50, maxMs: 200 },
        budget: new RetryBudget({ maxTokens: 200 }),
      },
    });
    expect(client.peerHonoursKeys).toBe(true);
    const sent = client.send(text); // keyed by the client: the card advertises the extension
    expect(await first.ended).toEqual({ code: null, signal: 'SIGKILL' });
    expect(first.stderr()).toContain(crashLine('after-effect'));
    // The same store and port, no crash point: the client's next retry lands here.
    await start(undefined, Number(new URL(first.url).port));
    const result = await sent;
    if (!('task' in result)) throw new Error(`expected a task, got ${JSON.stringify(result)}`);
    expectOnce(result.task, text, 2);
    expect(resumes(result.task)).toBe(1);
  }, 30_000);

  it('a worker frozen (SIGSTOP) at its step past its lease wakes fenced out: no write lands, no effect', async () => {
    const text = 'chaos frozen worker';
    const message: Message = setKey(userMessage(text), mintKey());
    const frozen = await start('before-effect:stop');
    const other = await start();
    // A blocking send, left waiting while its server is frozen.
    const firstCall = rpc(frozen.url, 'SendMessage', { message });
    await until(() => frozen.stderr().includes(crashLine('before-effect')));
    expect(frozen.child.exitCode).toBeNull();

    // The other replica takes the task over once the frozen one's lease lapses, and makes the only post.
    const task = await sendForTask(other.url, message);
    expectOnce(task, text, 1);
    expect(resumes(task)).toBe(1);

    frozen.child.kill('SIGCONT');
    // It wakes inside its step: the lease check before the effect is refused, so it posts nothing, and its
    // lease renewals (every third of the 1 s lease) are refused too. It stays up and agrees about the task.
    await until(async () => (await getTask(frozen.url, task.id)).id === task.id);
    await new Promise((r) => setTimeout(r, 1000));
    expect(ledger.requestsFor(`${task.id}:ledger-post`)).toBe(1);
    expect(await getTask(other.url, task.id)).toEqual(task);
    expect(await getTask(frozen.url, task.id)).toEqual(task);
    expect(frozen.child.exitCode).toBeNull();
    // Its first caller gets an answer too once it thaws: the task as the other replica finished it.
    expect(await firstCall).toMatchObject({ result: { task } });
  }, 30_000);
}
