// A redis-server of the bench's own, on a free loopback port, persisting nothing (no RDB, no AOF: an AOF
// rewrite's fork would add copy-on-write pages to what a memory bench reads), in a scratch folder. `stop()`
// kills it and removes the folder.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Starts the server and resolves once it accepts connections: { port, url, stop }. */
export async function startOwnRedis(name) {
  const port = await new Promise((done) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => done(p));
    });
  });
  const dir = mkdtempSync(join(tmpdir(), `a2a-once-${name}-`));
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise((done, fail) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('Ready to accept connections')) done();
    });
    child.once('exit', (code) => fail(new Error(`redis-server exited ${code}: ${out}`)));
  });
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop() {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
