/**
 * Runs the built CLI (`dist/cli/bin.js serve ...`) as a child process, the way an operator would, and waits for
 * its one-line announcement. Tests use it for replicas, restarts and kill -9.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Path of the built CLI. */
export const CLI_PATH = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));

/** Whether the CLI has been built (`npm test` builds it first). */
export const cliBuilt = existsSync(CLI_PATH);

/** A running `a2a-once serve`. */
export interface ServeProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** SIGTERM and wait for exit. */
  stop(): Promise<void>;
  /** SIGKILL (no cleanup at all) and wait for exit. */
  kill9(): Promise<void>;
  /** Everything the process wrote on stderr so far. */
  stderr(): string;
}

/**
 * Starts `a2a-once serve` with `args`; resolves once it prints its URL. Without `--port` in `args` it asks for any
 * free port (`--port 0`): the CLI's default port is fixed, and tests run side by side.
 */
export function startServe(args: string[], cwd?: string, timeoutMs = 15_000): Promise<ServeProcess> {
  const portArgs = args.includes('--port') ? [] : ['--port', '0'];
  const child = spawn(process.execPath, [CLI_PATH, 'serve', ...portArgs, ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stopWith = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stopWith('SIGKILL');
      reject(new Error(`serve did not start in ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /a2a-once listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({
          url: m[1]!,
          child,
          stop: () => stopWith('SIGTERM'),
          kill9: () => stopWith('SIGKILL'),
          stderr: () => stderr,
        });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before listening: ${stderr}`));
    });
  });
}
