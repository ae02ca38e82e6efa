/**
 * What the Redis process tests share: `serve` processes on a Redis store URL, each with an effects log in a
 * scratch folder of the test's own, a pair of them counted as one server, and the two checks every two-replica
 * set-up runs (docs/semantics.md §2: one execution per key, whichever replica a send or its retry lands on).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { countEffects } from '../../src/cli/agents/index.js';
import { mintKey, setKey } from '../../src/idempotency/index.js';
import type { Task } from '../../src/protocol/model.js';
import { startServe, type ServeProcess } from './serve-process.js';
import { rpc, sendForTask, userMessage } from './wire.js';

/** A scratch folder for effects logs, removed by `remove()`. */
export interface ScratchDir {
  /** A file in the folder. */
  file(name: string): string;
  remove(): void;
}

export function scratchDir(name: string): ScratchDir {
  const dir = mkdtempSync(join(tmpdir(), `a2a-once-${name}-`));
  return {
    file: (file) => join(dir, file),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** How a `serve` on Redis runs. */
export interface RedisServeOptions {
  /** The store URL (`redis://...` or `redis-cluster://...`). */
  readonly store: string;
  /** The effects log the agent appends one line to per run. */
  readonly effectsLog: string;
  /** The agent and its flags (default the echo agent). */
  readonly agent?: readonly string[];
  /** The Redis persists nothing (the shared one, a cluster of the test's own): pass --redis-allow-volatile. */
  readonly volatile?: boolean;
}

/** Starts `a2a-once serve` on a Redis store. */
export function serveOnRedis(options: RedisServeOptions): Promise<ServeProcess> {
  return startServe([
    ...(options.agent ?? ['--agent', 'echo']),
    '--store',
    options.store,
    ...(options.volatile === true ? ['--redis-allow-volatile'] : []),
    '--effects-log',
    options.effectsLog,
  ]);
}

/** Two replicas on one Redis store, each with its own effects log. */
export interface RedisReplicas {
  readonly a: ServeProcess;
  readonly b: ServeProcess;
  /** Agent runs on both replicas so far. */
  executions(): number;
  /** Stops both replicas and removes the scratch folder. */
  stop(): Promise<void>;
}

/** Starts two replicas of the slow agent (`delayMs` per turn) on `store`. */
export async function startRedisReplicas(
  name: string,
  store: string,
  delayMs: number,
  volatile: boolean,
): Promise<RedisReplicas> {
  const dir = scratchDir(name);
  const logA = dir.file('a.log');
  const logB = dir.file('b.log');
  const agent = ['--agent', 'slow', '--delay-ms', String(delayMs)];
  const started = await Promise.allSettled([
    serveOnRedis({ store, effectsLog: logA, agent, volatile }),
    serveOnRedis({ store, effectsLog: logB, agent, volatile }),
  ]);
  const up = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await Promise.all(up.map((p) => p.stop()));
    dir.remove();
    throw failed.reason;
  }
  const [a, b] = up as [ServeProcess, ServeProcess];
  return {
    a,
    b,
    executions: () => countEffects(logA) + countEffects(logB),
    stop: async () => {
      await Promise.all([a.stop(), b.stop()]);
      dir.remove();
    },
  };
}

/** 200 concurrent identical keyed sends, split across both replicas, run once and answer one task. */
export async function racingKeyedSendsRunOnce(replicas: RedisReplicas): Promise<void> {
  const before = replicas.executions();
  const message = setKey(userMessage('charge card 42'), mintKey());
  const answers = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      sendForTask(i % 2 === 0 ? replicas.a.url : replicas.b.url, message),
    ),
  );
  expect(new Set(answers.map((t) => t.id)).size).toBe(1);
  expect(answers.every((t) => t.status.state === 'TASK_STATE_COMPLETED')).toBe(true);
  expect(replicas.executions() - before).toBe(1);
}

/** A first attempt on A given up by its caller is replayed, not run again, by a retry on B. */
export async function lostAttemptReplaysOnTheOther(replicas: RedisReplicas): Promise<void> {
  const before = replicas.executions();
  const message = setKey(userMessage('ship order 7'), mintKey());
  await expect(rpc(replicas.a.url, 'SendMessage', { message }, AbortSignal.timeout(100))).rejects.toThrow();
  const retried = await sendForTask(replicas.b.url, message);
  expect(retried.status.state).toBe('TASK_STATE_COMPLETED');
  const onA = (await rpc(replicas.a.url, 'GetTask', { id: retried.id })) as { result?: Task };
  expect(onA.result?.id).toBe(retried.id);
  expect(replicas.executions() - before).toBe(1);
}
