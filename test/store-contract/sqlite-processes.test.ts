/**
 * SQLite across processes: several child processes race on one database file, through the BUILT store in dist/
 * (`npm test` builds first). Skipped, with a visible notice, when dist/ has not been built.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteTaskStore } from '../../src/store/sqlite/index.js';
import { racerSource } from './fixtures/sqlite-racer.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const built = existsSync(join(root, 'dist/store/sqlite/index.js'));
const dir = mkdtempSync(join(tmpdir(), 'a2a-once-procs-'));
const racer = join(dir, 'sqlite-racer.mjs');
writeFileSync(racer, racerSource(pathToFileURL(join(root, 'dist/store/sqlite/index.js')).href));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PROCESSES = 8;
const PER_PROCESS = 8;

if (!built)
  console.warn(
    '[a2a-once] NOTICE: dist/ is not built; skipping the SQLite multi-process races (run npm test).',
  );

/** Reads a child's stdout line by line. */
interface LineReader {
  next(): Promise<string>;
}

function lines(child: ChildProcessWithoutNullStreams): LineReader {
  let buf = '';
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buf += chunk;
    let i;
    while ((i = buf.indexOf('\n')) !== -1) {
      queue.push(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
    wake?.();
  });
  return {
    async next() {
      while (queue.length === 0) await new Promise<void>((r) => (wake = r));
      return queue.shift()!;
    },
  };
}

/** Starts the racers, waits until all are ready, releases them together, and returns every outcome. */
async function race(path: string, mode: 'claim' | 'commit'): Promise<string[]> {
  const children = Array.from({ length: PROCESSES }, (_, i) =>
    spawn(process.execPath, [racer, path, mode, String(PER_PROCESS), String(i)], { stdio: 'pipe' }),
  );
  const outs = children.map(lines);
  let stderr = '';
  for (const c of children) c.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    for (const o of outs) expect(await o.next()).toBe('ready');
    for (const c of children) c.stdin.write('go\n');
    const results = await Promise.all(outs.map(async (o) => JSON.parse(await o.next()) as string[]));
    return results.flat();
  } catch (err) {
    throw new Error(`racer failed: ${String(err)}\n${stderr}`);
  }
}

describe.skipIf(!built)('SQLite store across processes', () => {
  it(`${PROCESSES} processes x ${PER_PROCESS} claims of one key: exactly one created`, async () => {
    const path = join(dir, 'claims.db');
    const store = new SqliteTaskStore({ path });
    await store.migrate();
    const results = await race(path, 'claim');
    expect(results).toHaveLength(PROCESSES * PER_PROCESS);
    const created = results.filter((r) => r.startsWith('created:'));
    expect(created).toHaveLength(1);
    const winner = created[0]!.slice('created:'.length);
    expect(results.filter((r) => r === `held:${winner}`)).toHaveLength(PROCESSES * PER_PROCESS - 1);
    expect(await store.getTask({ tenant: 'acme', owner: 'alice' }, winner)).toBeDefined();
    await store.close();
  });

  it(`${PROCESSES} processes x ${PER_PROCESS} commits on one fence and seq: exactly one ok`, async () => {
    const path = join(dir, 'commits.db');
    const store = new SqliteTaskStore({ path });
    await store.migrate();
    const scope = { tenant: 'acme', owner: 'alice' };
    await store.createTask(scope, {
      task: { id: 'shared', contextId: 'ctx', status: { state: 'TASK_STATE_SUBMITTED' } },
    });
    const results = await race(path, 'commit');
    expect(results.filter((r) => r === 'ok')).toHaveLength(1);
    expect(results.filter((r) => r === 'stale')).toHaveLength(PROCESSES * PER_PROCESS - 1);
    expect(await store.readEvents(scope, 'shared', 0)).toHaveLength(1);
    await store.close();
  });
});
