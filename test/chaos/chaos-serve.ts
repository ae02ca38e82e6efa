/**
 * `a2a-once serve --agent ledger` processes for the chaos tests: the built CLI (`dist/`), on a shared store, with
 * a short lease, posting to the test's ledger service, and optionally armed with a crash point
 * (`A2A_ONCE_TEST_CRASH_AT`, ADR 0041). Unlike test/processes/serve-process.ts it sets the child's environment
 * and reports how the child ended, because what these tests watch is the process dying at its crash point.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { CLI_PATH } from '../processes/serve-process.js';

/** The lease the chaos servers run with: short, so a dead server's task is recovered within a second or two. */
export const CHAOS_LEASE = '1s';

/** How a child ended. */
export interface Ended {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A running chaos server. */
export interface ChaosServe {
  readonly url: string;
  readonly child: ChildProcess;
  /** Settles when the process has ended, with how. */
  readonly ended: Promise<Ended>;
  /** Everything written on stderr so far. */
  stderr(): string;
  /** Ends the process (SIGCONT first, in case the test left it stopped; then SIGKILL) and waits for it. */
  dispose(): Promise<void>;
}

/** What to start. */
export interface ChaosServeOptions {
  readonly store: string;
  readonly ledgerUrl: string;
  /** `A2A_ONCE_LEDGER_SEMANTICS` for this process (the post step's semantics); unset when absent. */
  readonly semantics?: 'at-least-once' | 'at-most-once';
  /** `A2A_ONCE_TEST_CRASH_AT` for this process; unset when absent. */
  readonly crashAt?: string;
  /** The port to listen on (a restart on the port its predecessor had); an ephemeral one when absent. */
  readonly port?: number;
}

/** Starts `serve --agent ledger`; resolves once it prints its URL. */
export function startChaosServe(o: ChaosServeOptions, timeoutMs = 15_000): Promise<ChaosServe> {
  const env: NodeJS.ProcessEnv = { ...process.env, A2A_ONCE_LEDGER_URL: o.ledgerUrl };
  delete env.A2A_ONCE_TEST_CRASH_AT;
  if (o.crashAt !== undefined) env.A2A_ONCE_TEST_CRASH_AT = o.crashAt;
  delete env.A2A_ONCE_LEDGER_SEMANTICS;
  if (o.semantics !== undefined) env.A2A_ONCE_LEDGER_SEMANTICS = o.semantics;
  const args = [
    '--agent',
    'ledger',
    '--lease',
    CHAOS_LEASE,
    '--retention-interval',
    'off',
    '--store',
    o.store,
  ];
  // Any free port unless the scenario needs a known one (the CLI's default port is fixed).
  args.push('--port', String(o.port ?? 0));
  const child = spawn(process.execPath, [CLI_PATH, 'serve', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ended = new Promise<Ended>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const dispose = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
    await ended;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void dispose();
      reject(new Error(`serve did not start in ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /a2a-once listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1]!, child, ended, stderr: () => stderr, dispose });
      }
    });
    void ended.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`serve ended (${code ?? signal}) before listening: ${stderr}`));
    });
  });
}

/** The stderr line the crash-point hook writes just before it signals its process. */
export function crashLine(point: string): string {
  return `a2a-once test crash point ${point} reached`;
}
