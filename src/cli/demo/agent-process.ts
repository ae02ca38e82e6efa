/**
 * The demo's agents are real `a2a-once serve` processes on loopback, started from the built CLI the way an operator
 * starts one. This file starts them, waits for their `a2a-once listening on URL` line, and keeps every process it
 * ever started in one registry, so the demo ends them all however it ends (done, an error, Ctrl-C).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The built CLI: next to this file once built; from the sources (tests), the package's `dist/`. */
export function cliPath(): string {
  const built = fileURLToPath(new URL('../bin.js', import.meta.url));
  return existsSync(built) ? built : fileURLToPath(new URL('../../../dist/cli/bin.js', import.meta.url));
}

/** How long a server may take to say it listens. */
const START_TIMEOUT_MS = 15_000;
/** How long a stopped server gets to exit before it is killed. */
const STOP_GRACE_MS = 1_000;

/** A running `serve`. */
export interface AgentProcess {
  readonly pid: number;
  readonly url: string;
  readonly port: number;
  /** Everything it wrote on stderr so far. */
  stderr(): string;
  /** SIGKILL, and wait until it is gone. */
  kill9(): Promise<void>;
}

/** Every process the demo started, to end them all. */
export class ProcessRegistry {
  readonly #live = new Map<ChildProcess, Promise<void>>();
  readonly #pids: number[] = [];

  /** Pids of every process ever started, in order (the tests check each is gone). */
  get pids(): readonly number[] {
    return this.#pids;
  }

  add(child: ChildProcess, exited: Promise<void>): void {
    if (child.pid !== undefined) this.#pids.push(child.pid);
    this.#live.set(child, exited);
    void exited.then(() => this.#live.delete(child));
  }

  /** SIGTERM to each live process, SIGKILL to any still there after a grace; resolves once all exited. */
  async stopAll(): Promise<void> {
    await Promise.all(
      [...this.#live].map(async ([child, exited]) => {
        signal(child, 'SIGTERM');
        const timer = setTimeout(() => signal(child, 'SIGKILL'), STOP_GRACE_MS);
        await exited;
        clearTimeout(timer);
      }),
    );
  }

  /** SIGKILL to each live process, synchronously: the last resort when the demo's own process is exiting. */
  killAllNow(): void {
    for (const child of this.#live.keys()) signal(child, 'SIGKILL');
  }
}

function signal(child: ChildProcess, sig: NodeJS.Signals): void {
  if (child.exitCode === null && child.signalCode === null) child.kill(sig);
}

/**
 * Starts `a2a-once serve ARGS` with `env` added to this process's environment (minus the variables that configure
 * other demo agents); resolves once it listens.
 */
export function startAgentProcess(
  registry: ProcessRegistry,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): Promise<AgentProcess> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(childEnv))
    if (k.startsWith('A2A_ONCE_') && k !== 'A2A_ONCE_DEBUG') delete childEnv[k];
  Object.assign(childEnv, env);
  const child = spawn(process.execPath, [cliPath(), 'serve', ...args], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  registry.add(child, exited);
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal(child, 'SIGKILL');
      reject(new Error(`a2a-once serve did not start in ${START_TIMEOUT_MS} ms: ${stderr.trim()}`));
    }, START_TIMEOUT_MS);
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /a2a-once listening on (http:\/\/\S+)/.exec(out);
      if (m === null) return;
      clearTimeout(timer);
      const url = m[1]!;
      resolve({
        pid: child.pid!,
        url,
        port: Number(new URL(url).port),
        stderr: () => stderr,
        kill9: async () => {
          signal(child, 'SIGKILL');
          await exited;
        },
      });
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`a2a-once serve exited before listening: ${stderr.trim()}`));
    });
  });
}

/** The start-up recovery counts a restarted server printed (`a2a-once recovered N task(s) on start-up: ...`). */
export function recoveredOnStartup(stderr: string): { resumed: number; failed: number } | undefined {
  const m = /a2a-once recovered \d+ task\(s\) on start-up: (\d+) resumed, (\d+) failed/.exec(stderr);
  return m === null ? undefined : { resumed: Number(m[1]), failed: Number(m[2]) };
}
