/** `a2a-once migrate` and `a2a-once sweep`: called in-process with a capturing CliIO, and once as a real process. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { run as migrate } from '../../src/cli/commands/migrate.js';
import { run as sweep } from '../../src/cli/commands/sweep.js';
import { SqliteTaskStore } from '../../src/store/sqlite/index.js';
import { captureIO } from './capture-io.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'a2a-once-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const DAY = 86_400_000;
const scope = { tenant: '', owner: '' };

/** A database with `n` tasks completed 30 days ago (the store's clock is wall time). */
async function seeded(name: string, n: number): Promise<string> {
  const path = join(dir, name);
  const old = new SqliteTaskStore({ path, clock: { now: () => Date.now() - 30 * DAY } });
  await old.migrate();
  for (let i = 0; i < n; i++) {
    const task = { id: `t${i}`, status: { state: 'TASK_STATE_SUBMITTED' as const } };
    await old.createTask(scope, {
      task,
      claim: { key: `key-0000000000-${i}`, messageId: 'm', digest: 'd', expiresAt: 0 },
    });
    await old.commit(scope, task.id, {
      expectFence: 1,
      task: { ...task, status: { state: 'TASK_STATE_COMPLETED' } },
      events: [],
    });
  }
  await old.close();
  return path;
}

describe('a2a-once migrate', () => {
  it('applies the migrations once, then reports the schema current', async () => {
    const url = `sqlite:${join(dir, 'm.db')}`;
    const io = captureIO();
    expect(await migrate(['--store', url, '--create'], io)).toBe(0);
    expect(io.outLines.join('\n')).toMatch(
      /applied migration\(s\) 1, 2, 3, 4, 5, 6, 7, 8; schema now at version 8/,
    );
    const again = captureIO();
    expect(await migrate([`--store=${url}`], again)).toBe(0);
    expect(again.outLines.join('\n')).toMatch(/schema is current \(version 8\)/);
  });

  it('exits 2 on bad usage and 1 when the store fails', async () => {
    const io = captureIO();
    expect(await migrate([], io)).toBe(2);
    expect(io.errLines.join('\n')).toMatch(/--store is required/);
    expect(await migrate(['--store', 'oracle://x'], captureIO())).toBe(2);
    expect(await migrate(['--bogus'], captureIO())).toBe(2);
    const fail = captureIO();
    expect(await migrate(['--store', `sqlite:${join(dir, 'no/such/dir/x.db')}`], fail)).toBe(1);
    expect(fail.errLines.join('\n')).toMatch(/a2a-once migrate:/);
  });

  it('runs as a real process from dist/', () => {
    const main = join(root, 'dist/cli/bin.js');
    if (!existsSync(main)) {
      console.warn(
        '[a2a-once] NOTICE: dist/ is not built; skipping the migrate process test (run npm test).',
      );
      return;
    }
    const r = spawnSync(
      process.execPath,
      [main, 'migrate', '--store', `sqlite:${join(dir, 'p.db')}`, '--create'],
      {
        encoding: 'utf8',
      },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/schema now at version 8/);
  });
});

describe('a2a-once sweep', () => {
  it('purges in batches, prints a line per batch off a terminal, then the report', async () => {
    const path = await seeded('s.db', 5);
    const io = captureIO(false);
    expect(await sweep(['--store', `sqlite:${path}`, '--older-than', '7d', '--batch-size', '4'], io)).toBe(0);
    expect(io.errLines).toEqual([
      'batch 1: 4 task(s) deleted, 0 abandoned task(s) ended, 0 key(s) expired, 0 tombstone(s) deleted',
      'batch 2: 5 task(s) deleted, 0 abandoned task(s) ended, 3 key(s) expired, 0 tombstone(s) deleted',
      'batch 3: 5 task(s) deleted, 0 abandoned task(s) ended, 5 key(s) expired, 0 tombstone(s) deleted',
    ]);
    // The keys expired long ago (expiresAt 0), but they became tombstones in this sweep: a tombstone's age counts
    // from then (ADR 0027), so the sweep that makes a tombstone never deletes it.
    expect(io.outLines.join('\n')).toMatch(
      /5 task\(s\) deleted, 0 abandoned task\(s\) ended, 5 key\(s\) turned into tombstones, 0 tombstone\(s\) deleted in 3 batch/,
    );
    expect(io.outLines.at(-1)).toBe('complete');
    const store = new SqliteTaskStore({ path });
    expect(await store.getKey(scope, 'key-0000000000-0')).toMatchObject({ tombstone: true });
    await store.close();
  });

  it('ends tasks left waiting for input longer than --abandon-after (30 days by default)', async () => {
    const path = join(dir, 'a.db');
    const old = new SqliteTaskStore({ path, clock: { now: () => Date.now() - 40 * DAY } });
    await old.migrate();
    const task = { id: 'w1', status: { state: 'TASK_STATE_SUBMITTED' as const } };
    await old.createTask(scope, { task });
    const waiting = { ...task, status: { state: 'TASK_STATE_INPUT_REQUIRED' as const } };
    await old.commit(scope, 'w1', { expectFence: 1, task: waiting, events: [] });
    await old.close();
    const kept = captureIO();
    expect(await sweep(['--store', `sqlite:${path}`, '--abandon-after', '60d', '--json'], kept)).toBe(0);
    expect(JSON.parse(kept.outLines[0]!)).toMatchObject({ abandoned: 0 });
    const io = captureIO();
    expect(await sweep(['--store', `sqlite:${path}`, '--json'], io)).toBe(0);
    expect(JSON.parse(io.outLines[0]!)).toMatchObject({ tasks: 0, abandoned: 1, complete: true });
    const store = new SqliteTaskStore({ path });
    expect(await store.getTask(scope, 'w1')).toMatchObject({
      task: { status: { state: 'TASK_STATE_CANCELED' } },
      fence: 2,
      seq: 1,
    });
    await store.close();
  });

  it('stops at --max-batches, prints JSON, and redraws progress on a terminal', async () => {
    const path = await seeded('j.db', 6);
    const io = captureIO(true);
    const args = [
      '--store',
      `sqlite:${path}`,
      '--older-than',
      '1d',
      '--batch-size',
      '2',
      '--max-batches',
      '2',
      '--json',
    ];
    expect(await sweep(args, io)).toBe(0);
    expect(JSON.parse(io.outLines[0]!)).toEqual({
      tasks: 4,
      abandoned: 0,
      keys: 0,
      tombstones: 0,
      batches: 2,
      complete: false,
    });
    expect(io.errLines[0]).toMatch(/^sweeping sqlite:/);
    expect(io.errLines[2]?.startsWith('\u001b[1A\u001b[2Kbatch 2:')).toBe(true);
  });

  it('keeps tasks younger than --older-than', async () => {
    const path = await seeded('y.db', 2);
    const io = captureIO();
    expect(await sweep(['--store', `sqlite:${path}`, '--older-than', '60d', '--json'], io)).toBe(0);
    expect(JSON.parse(io.outLines[0]!)).toMatchObject({ tasks: 0, keys: 0, complete: true });
  });

  it('exits 2 on bad usage', async () => {
    for (const args of [
      [],
      ['--store', 'memory', '--older-than', 'soon'],
      ['--store', 'memory', '--batch-size', '0'],
      ['x'],
    ]) {
      const io = captureIO();
      expect(await sweep(args, io)).toBe(2);
      expect(io.errLines.at(-1)).toMatch(/^usage: a2a-once sweep/);
    }
  });
});
