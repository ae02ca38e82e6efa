/**
 * The lost-replica scenarios as a vitest suite over one store URL, so the PostgreSQL and the SQLite files run
 * exactly the same checks (see lost-replica.ts for what they prove).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readEffects } from '../../src/cli/agents/index.js';
import {
  expectCompletedOnce,
  getTask,
  recoveriesOf,
  startReplicas,
  startSlowTask,
  until,
} from './lost-replica.js';
import { startServe, type ServeProcess } from './serve-process.js';
import { sendForTask } from './wire.js';

/** Registers the scenarios; `store(dir)` gives the store URL both replicas share. */
export function lostReplicaScenarios(store: (dir: string) => string, cleanup: () => Promise<void>): void {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-once-lost-replica-'));
  const url = store(dir);
  let a: ServeProcess;
  let b: ServeProcess;
  let c: ServeProcess;
  let logs: string[] = [];
  let logA = '';
  const started: ServeProcess[] = [];

  beforeAll(async () => {
    const r = await startReplicas(url, dir);
    [a, b, c] = r.replicas as [ServeProcess, ServeProcess, ServeProcess];
    logs = r.logs;
    logA = logs[0]!;
    started.push(...r.replicas);
  }, 30_000);
  afterAll(async () => {
    for (const p of started) {
      if (p.child.signalCode === null && p.child.exitCode === null) p.child.kill('SIGCONT');
    }
    await Promise.all(started.map((p) => p.stop()));
    await cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('has exactly one other replica recover a task whose replica was killed (SIGKILL); a keyed retry gets the final task', async () => {
    const { message, taskId } = await startSlowTask(a, logA, 'killed mid-task');
    await a.kill9();
    // The retry lands on B while A's lease may still run: B's and C's sweeps race for the task once it lapses.
    const retried = await sendForTask(b.url, message);
    expect(retried.id).toBe(taskId);
    expectCompletedOnce(retried, 'killed mid-task', logs);
    await until(() => recoveriesOf([b, c], taskId).length > 0);
    await new Promise((r) => setTimeout(r, 600)); // another sweep each: a second takeover would show by now
    expect(recoveriesOf([b, c], taskId)).toEqual(['resumed']);
    // A restarted A serves again and finds nothing left to recover.
    a = await startServe(a.child.spawnargs.slice(3));
    started.push(a);
    await until(() => /a2a-once recovered 0 task\(s\) on start-up: 0 resumed, 0 failed/.test(a.stderr()));
    expectCompletedOnce(await getTask(a.url, taskId), 'killed mid-task', logs);
  }, 60_000);

  it('fences out a frozen replica (SIGSTOP) that wakes up after another one took its task over', async () => {
    const { message, taskId } = await startSlowTask(a, logA, 'frozen mid-task');
    a.child.kill('SIGSTOP'); // an evicted pod, a paused VM: alive, but silent past its lease
    const retried = await sendForTask(b.url, message);
    expectCompletedOnce(retried, 'frozen mid-task', logs);
    await until(() => recoveriesOf([b, c], taskId).length > 0);
    const settled = await getTask(b.url, taskId);

    a.child.kill('SIGCONT');
    // A's worker wakes where it slept: its next progress write or lease renewal is refused, and it stops.
    await new Promise((r) => setTimeout(r, 2500));
    const after = await getTask(b.url, taskId);
    expect(after).toEqual(settled);
    expectCompletedOnce(after, 'frozen mid-task', logs);
    expect(readEffects(logA).filter((e) => e.taskId === taskId)).toHaveLength(1);
    expect(recoveriesOf([a, b, c], taskId)).toEqual(['resumed']);
    // A is healthy and agrees about the task.
    expect(await getTask(a.url, taskId)).toEqual(settled);
  }, 60_000);
}
