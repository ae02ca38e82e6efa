/**
 * Spawns the built a2a-once server (`node dist/cli/bin.js serve`) on 127.0.0.1 for the client's tests against
 * a peer that honours keys. The build is `npm test`'s pretest; these tests skip when `dist/cli/bin.js` is
 * missing rather than build it themselves.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built CLI. */
export const CLI_PATH = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'dist',
  'cli',
  'bin.js',
);

/** Whether the server can be spawned (the package has been built). */
export const SERVER_BUILT = existsSync(CLI_PATH);

/** A running a2a-once server. */
export interface OnceServer {
  readonly url: string;
  /** How many times the agent ran for `messageId` (lines of the effects log). */
  executionsOf(messageId: string): number;
  /** Every execution. */
  executions(): { taskId: string; messageId: string; text: string }[];
  close(): Promise<void>;
}

/** Starts `a2a-once serve` with an in-memory store and an effects log in `dir`. */
export async function startOnceServer(dir: string, agent = 'slow', delayMs = 300): Promise<OnceServer> {
  const effects = join(dir, `effects-${process.pid}-${Date.now()}.log`);
  const child: ChildProcess = spawn(
    process.execPath,
    [
      CLI_PATH,
      'serve',
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--agent',
      agent,
      '--delay-ms',
      String(delayMs),
      '--store',
      'memory',
      '--effects-log',
      effects,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`a2a-once serve did not start: ${stderr}`)), 15_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      const m = /a2a-once listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`a2a-once serve exited (${code}): ${stderr}`));
    });
  });
  const executions = () =>
    existsSync(effects)
      ? readFileSync(effects, 'utf8')
          .split('\n')
          .filter((l) => l.trim() !== '')
          .map((l) => JSON.parse(l) as { taskId: string; messageId: string; text: string })
      : [];
  return {
    url,
    executions,
    executionsOf: (messageId) => executions().filter((e) => e.messageId === messageId).length,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
