/**
 * A `redis-server` of the test's own, in a scratch folder, for what the shared Redis cannot show: it keeps
 * nothing on disk, and killing it would break every other test. Started with the persistence asked for (AOF
 * with `appendfsync always` or `everysec`), killed with SIGKILL, and started again on the same folder and port.
 * Also a three-node Redis Cluster (`redis-server --cluster-enabled yes`, joined with `redis-cli --cluster create`).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Whether `redis-server` and `redis-cli` are installed. */
export const redisServerInstalled =
  spawnSync('redis-server', ['--version']).status === 0 && spawnSync('redis-cli', ['--version']).status === 0;

/** A free loopback port (bound, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** A running server of our own. */
export interface OwnRedis {
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  /** SIGKILL, and wait for the exit. */
  kill9(): Promise<void>;
  /** Starts it again on the same folder and port (after `kill9`). */
  restart(): Promise<void>;
  /** Stops it and deletes its folder. */
  dispose(): Promise<void>;
}

function startProcess(args: string[], cwd: string): Promise<ChildProcess> {
  const child = spawn('redis-server', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`redis-server did not start: ${out}`));
    }, 10_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${String(code)}: ${out}`));
    });
  });
}

function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  return exited;
}

/** Starts a server persisting with AOF and the `appendfsync` given (RDB off), or nothing (`volatile`). */
export async function startOwnRedis(fsync: 'always' | 'everysec' | 'volatile'): Promise<OwnRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-once-redis-'));
  const port = await freePort();
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    fsync === 'volatile' ? 'no' : 'yes',
    ...(fsync === 'volatile' ? [] : ['--appendfsync', fsync]),
  ];
  let child = await startProcess(args, dir);
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    kill9: () => killed(child),
    restart: async () => {
      child = await startProcess(args, dir);
    },
    dispose: async () => {
      await killed(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A three-node cluster of our own (masters only), slots spread by `redis-cli --cluster create`. */
export interface OwnCluster {
  readonly ports: readonly number[];
  dispose(): Promise<void>;
}

export async function startOwnCluster(): Promise<OwnCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-once-redis-cluster-'));
  const ports = [await freePort(), await freePort(), await freePort()];
  const children: ChildProcess[] = [];
  try {
    for (const port of ports) {
      children.push(
        await startProcess(
          [
            '--port',
            String(port),
            '--bind',
            '127.0.0.1',
            '--dir',
            dir,
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            `nodes-${port}.conf`,
            '--save',
            '',
            '--appendonly',
            'no',
          ],
          dir,
        ),
      );
    }
    const made = spawnSync(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...ports.map((p) => `127.0.0.1:${p}`),
        '--cluster-replicas',
        '0',
        '--cluster-yes',
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    if (made.status !== 0) throw new Error(`redis-cli --cluster create failed: ${made.stdout}${made.stderr}`);
    await clusterReady(ports[0]!);
  } catch (err) {
    await Promise.all(children.map(killed));
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    ports,
    dispose: async () => {
      await Promise.all(children.map(killed));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until the cluster says `cluster_state:ok` (the nodes have met and agree on the slots). */
async function clusterReady(port: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const info = spawnSync('redis-cli', ['-p', String(port), 'cluster', 'info'], { encoding: 'utf8' });
    if (info.stdout.includes('cluster_state:ok')) return;
    if (Date.now() > deadline) throw new Error(`the cluster did not become ready: ${info.stdout}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
