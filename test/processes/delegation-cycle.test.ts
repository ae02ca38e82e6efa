/**
 * Two real `a2a-once serve` processes of the `delegating` agent, each told to delegate to the other: the loop a
 * misconfigured pair of agents makes (docs/semantics.md §4 "Delegation", ADR 0061, ADR 0062). One send must not
 * become an ever-growing chain: the chain stops at the depth limit with an error that reaches the root, and
 * cancelling the root cancels every task of the chain on both servers. Tasks are counted from outside, in each
 * server's effects log (one line per task); every wait here is bounded, so a chain that grows fails the test
 * instead of running it for ever.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DELEGATE_TO_ENV, readEffects, type EffectRecord } from '../../src/cli/agents/index.js';
import type { Task } from '../../src/protocol/model.js';
import { cliBuilt, startServe, type ServeProcess } from './serve-process.js';
import { rpc, sendForTask, userMessage } from './wire.js';

/** A port that was free a moment ago (each server must know the other's URL before either starts). */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

interface Pair {
  readonly a: ServeProcess;
  readonly b: ServeProcess;
  /** Every task each server ran, with the server it ran on. */
  tasks(): { server: ServeProcess; effect: EffectRecord }[];
}

const dirs: string[] = [];
const running: ServeProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.kill9()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Starts A and B, each delegating to the other, with `extra` flags on both and `extraB` on B alone. */
async function startPair(extra: string[] = [], extraB: string[] = []): Promise<Pair> {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-once-cycle-'));
  dirs.push(dir);
  const [portA, portB] = [await freePort(), await freePort()];
  const start = async (port: number, peer: number, log: string, own: string[] = []) => {
    process.env[DELEGATE_TO_ENV] = `http://127.0.0.1:${peer}`;
    try {
      // Spawned synchronously, with the environment as it is now.
      const p = startServe(
        [
          '--agent',
          'delegating',
          '--store',
          'memory',
          '--port',
          String(port),
          '--effects-log',
          log,
          ...extra,
          ...own,
        ],
        dir,
      );
      return await p;
    } finally {
      delete process.env[DELEGATE_TO_ENV];
    }
  };
  const logA = join(dir, 'a.log');
  const logB = join(dir, 'b.log');
  const a = await start(portA, portB, logA);
  running.push(a);
  const b = await start(portB, portA, logB, extraB);
  running.push(b);
  return {
    a,
    b,
    tasks: () => [
      ...readEffects(logA).map((effect) => ({ server: a, effect })),
      ...readEffects(logB).map((effect) => ({ server: b, effect })),
    ],
  };
}

async function getTask(url: string, id: string): Promise<Task> {
  const body = (await rpc(url, 'GetTask', { id })) as { result?: Task; error?: unknown };
  if (!body.result) throw new Error(`GetTask ${id}: ${JSON.stringify(body.error)}`);
  return body.result;
}

const statusText = (t: Task) =>
  (t.status.message?.parts ?? []).map((p) => ('text' in p ? p.text : '')).join('');

/** Waits for `check`, at most `timeoutMs`; false if it never held. */
async function within(timeoutMs: number, check: () => boolean | Promise<boolean>): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!cliBuilt)('two servers delegating to each other', () => {
  it('stop at the default depth: 9 tasks (hops 0 to 8), the refusal surfacing in the root', async () => {
    const pair = await startPair();
    const root = await sendForTask(pair.a.url, userMessage('loop'), { returnImmediately: true });
    // Bounded: a chain that grows past the limit ends the wait early, and fails below.
    const settled = await within(
      15_000,
      async () =>
        pair.tasks().length > 40 ||
        ['TASK_STATE_FAILED', 'TASK_STATE_COMPLETED', 'TASK_STATE_CANCELED'].includes(
          (await getTask(pair.a.url, root.id)).status.state,
        ),
    );
    const count = pair.tasks().length;
    expect(count).toBe(9);
    expect(settled).toBe(true);
    const ended = await getTask(pair.a.url, root.id);
    expect(ended.status.state).toBe('TASK_STATE_FAILED');
    expect(statusText(ended)).toMatch(
      /Delegation refused: the task would be hop 9 of delegation chain [A-Za-z0-9_-]{22}, past the limit of 8/,
    );
    // The chain alternates between the servers, and nothing more starts afterwards.
    expect(pair.tasks().filter((t) => t.server === pair.a)).toHaveLength(5);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(pair.tasks()).toHaveLength(9);
    for (const t of pair.tasks())
      expect((await getTask(t.server.url, t.effect.taskId)).status.state).toBe('TASK_STATE_FAILED');
  }, 40_000);

  it('follow the lower limit of the two: B refuses at its door past its --max-delegation-depth 2', async () => {
    const pair = await startPair([], ['--max-delegation-depth', '2']);
    // A (limit 8) runs hops 0 and 2, B hop 1; A's send of hop 3 is refused by B before B claims anything.
    const root = await sendForTask(pair.a.url, userMessage('loop'));
    expect(root.status.state).toBe('TASK_STATE_FAILED');
    expect(statusText(root)).toMatch(
      /Delegation refused: the task would be hop 3 of delegation chain [A-Za-z0-9_-]{22}, past the limit of 2/,
    );
    expect(pair.tasks().map((t) => t.server === pair.a)).toEqual([true, true, false]);
  }, 40_000);

  it('cancelling the root cancels every task of the chain on both servers within a bounded time', async () => {
    // A limit far away, so the chain is still growing when the root is cancelled.
    const pair = await startPair(['--max-delegation-depth', '100']);
    const root = await sendForTask(pair.a.url, userMessage('loop'), { returnImmediately: true });
    expect(await within(10_000, () => pair.tasks().length >= 6)).toBe(true);
    await rpc(pair.a.url, 'CancelTask', { id: root.id });
    // Bounded: every task the chain made is CANCELED, and the count then holds still for a second.
    const allCancelled = async () => {
      const states = await Promise.all(
        pair.tasks().map(async (t) => (await getTask(t.server.url, t.effect.taskId)).status.state),
      );
      return states.every((s) => s === 'TASK_STATE_CANCELED');
    };
    expect(await within(10_000, allCancelled)).toBe(true);
    const count = pair.tasks().length;
    await new Promise((r) => setTimeout(r, 1_000));
    expect(pair.tasks()).toHaveLength(count);
    expect(await allCancelled()).toBe(true);
    // Far short of the limit: the cancel stopped the chain, not the depth.
    expect(count).toBeLessThan(50);
    expect(pair.tasks().some((t) => t.server === pair.b)).toBe(true);
  }, 60_000);
});
