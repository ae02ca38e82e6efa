/**
 * Three `a2a-once serve --agent slow` replicas on one shared store, and a replica lost mid-task (docs/semantics.md
 * §4, ADR 0037): killed with SIGKILL, or frozen with SIGSTOP (a pod evicted, a VM paused) and thawed after the
 * other replica took its task over. The scenarios are shared by the PostgreSQL and the SQLite test files.
 *
 * What they prove: exactly one of the other replicas (both sweep every half lease, and race) recovers the task
 * once the lease (1 s here) lapsed and resumes the slow agent,
 * which completes the task without making its effect again (one effects-log line, written through a durable step
 * with its side-effect key); a keyed retry gets the final task; and a frozen replica that wakes up is fenced out:
 * nothing it writes lands. Two replicas never both run the task to completion.
 */
import { join } from 'node:path';
import { expect } from 'vitest';
import { mintKey, setKey } from '../../src/idempotency/index.js';
import type { Task } from '../../src/protocol/model.js';
import { readEffects } from '../../src/cli/agents/index.js';
import { startServe, type ServeProcess } from './serve-process.js';
import { rpc, sendForTask, userMessage } from './wire.js';

/** The lease the replicas run with: short, so a lost replica's task is recovered within seconds. */
export const LEASE = '1s';

/** Three replicas on `storeUrl`, each with its own effects log in `dir`. */
export async function startReplicas(
  storeUrl: string,
  dir: string,
): Promise<{ replicas: ServeProcess[]; logs: string[] }> {
  const logs = ['a', 'b', 'c'].map((n) => join(dir, `${n}.log`));
  const args = (log: string) => [
    '--agent',
    'slow',
    '--delay-ms',
    '2000',
    '--lease',
    LEASE,
    '--retention-interval',
    'off',
    '--store',
    storeUrl,
    '--effects-log',
    log,
  ];
  const replicas: ServeProcess[] = [];
  for (const log of logs) replicas.push(await startServe(args(log)));
  return { replicas, logs };
}

/**
 * Which of `replicas` logged that it recovered task `taskId`, and how: a takeover a request made has its own warn
 * line; a sweep's are named in the sweep's warn summary (ADR 0131; their own lines are at info, which `serve`
 * writes only with --verbose).
 */
export function recoveriesOf(replicas: readonly ServeProcess[], taskId: string): string[] {
  // Complete lines only: the last one may still be arriving.
  const lines = (text: string) => text.slice(0, text.lastIndexOf('\n') + 1).split('\n');
  const named = (ids: unknown) => typeof ids === 'string' && ids.split(',').includes(taskId);
  return replicas.flatMap((r) =>
    lines(r.stderr())
      .filter((l) => l.startsWith('{') && l.includes(taskId))
      .flatMap((l) => {
        const line = JSON.parse(l) as Record<string, unknown>;
        if (line.message === 'recovered a task whose worker was lost') return [String(line.outcome)];
        if (line.message !== 'recovered tasks whose worker was lost') return [];
        return [
          ...(named(line.resumedTaskIds) ? ['resumed'] : []),
          ...(named(line.failedTaskIds) ? ['failed'] : []),
        ];
      }),
  );
}

/** GetTask over JSON-RPC. */
export async function getTask(url: string, id: string): Promise<Task> {
  const body = (await rpc(url, 'GetTask', { id })) as { result?: Task; error?: unknown };
  if (!body.result) throw new Error(`GetTask failed: ${JSON.stringify(body.error)}`);
  return body.result;
}

/** Polls until `check` holds (real time). */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Sends a keyed message to replica `on` and waits until its turn is under way: the effect step ran (one line in
 * `log`) and the first progress report is stored. Returns the message (for the retry) and the task id.
 */
export async function startSlowTask(
  on: ServeProcess,
  log: string,
  text: string,
): Promise<{ message: ReturnType<typeof userMessage>; taskId: string }> {
  const message = setKey(userMessage(text), mintKey());
  const first = await sendForTask(on.url, message, { returnImmediately: true });
  await until(async () => {
    const t = await getTask(on.url, first.id);
    return (t.history ?? []).some((m) => m.parts.some((p) => 'text' in p && p.text === 'progress 0%'));
  });
  expect(readEffects(log).filter((e) => e.taskId === first.id)).toHaveLength(1);
  return { message, taskId: first.id };
}

/** The checks every scenario ends with: completed once, one echo artifact, one effect with its step key. */
export function expectCompletedOnce(task: Task, text: string, logs: readonly string[]): void {
  expect(task.status.state).toBe('TASK_STATE_COMPLETED');
  expect(task.artifacts?.map((a) => a.parts)).toEqual([[{ text: `echo: ${text}` }]]);
  const resumed = (task.history ?? []).filter((m) => m.metadata?.['a2a-once/recovery'] === 'resumed');
  expect(resumed).toHaveLength(1);
  const effects = logs.flatMap((l) => readEffects(l)).filter((e) => e.taskId === task.id);
  expect(effects).toHaveLength(1);
  expect(effects[0]).toMatchObject({ taskId: task.id, text, key: `${task.id}:effect` });
}
