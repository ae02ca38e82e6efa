/**
 * The crash hook in a real `serve` (ADR 0041): a value of `A2A_ONCE_TEST_CRASH_AT` that names no point stops
 * the server from starting, saying why, so a misspelt test setting cannot run a chaos test without its crash.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI_PATH, cliBuilt } from '../processes/serve-process.js';

describe.skipIf(!cliBuilt)('serve with A2A_ONCE_TEST_CRASH_AT', () => {
  it('refuses to start when the value names no crash point', async () => {
    const env = { ...process.env, A2A_ONCE_TEST_CRASH_AT: 'after-clam' };
    const child = spawn(process.execPath, [CLI_PATH, 'serve', '--store', 'memory'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).not.toBe(0);
    expect(stdout).not.toContain('listening');
    expect(stderr).toContain(
      'A2A_ONCE_TEST_CRASH_AT="after-clam" is not <point>[:<n>][:stop] (unknown point)',
    );
  });
});
