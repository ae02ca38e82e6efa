/**
 * SQLite across processes: several child processes race on one database file, through the BUILT store in dist/
 * (`npm test` builds first): key claims, compare-and-sets, leadership (tryLead), retention ending abandoned
 * tasks while other processes continue them, recovery of a lapsed worker lease racing its lost owner's renewals,
 * and durable steps recorded once (ADR 0036). Skipped, with a visible notice, when dist/ has not been built.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/store/clock.js';
import { SqliteTaskStore } from '../../src/store/sqlite/index.js';
import { racerSource } from './fixtures/sqlite-racer.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const built = existsSync(join(root, 'dist/store/sqlite/index.js'));
// Made before the tests, not when the file is collected: a run that filters every test of this file out runs no
// hooks, and a folder made at collection would then be left behind.
let dir = '';
let racer = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'a2a-once-procs-'));
  racer = join(dir, 'sqlite-racer.mjs');
  writeFileSync(racer, racerSource(pathToFileURL(join(root, 'dist/store/sqlite/index.js')).href));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

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

type Mode = 'claim' | 'commit' | 'lead' | 'sweep' | 'continue' | 'recover' | 'renew' | 'step';

/**
 * Starts the racers (process i in mode `mode(i)`), waits until all are ready, releases them together, and returns
 * every outcome.
 */
async function race(path: string, mode: Mode | ((i: number) => Mode)): Promise<string[]> {
  const modeOf = typeof mode === 'string' ? () => mode : mode;
  const children = Array.from({ length: PROCESSES }, (_, i) =>
    spawn(process.execPath, [racer, path, modeOf(i), String(PER_PROCESS), String(i)], { stdio: 'pipe' }),
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

  it(`${PROCESSES} processes x ${PER_PROCESS} tryLead of one role: exactly one leads`, async () => {
    const path = join(dir, 'lead.db');
    const store = new SqliteTaskStore({ path });
    await store.migrate();
    const results = await race(path, 'lead');
    expect(results.filter((r) => r === 'lead')).toHaveLength(1);
    expect(results.filter((r) => r === 'follow')).toHaveLength(PROCESSES * PER_PROCESS - 1);
    await store.close();
  });

  it('sweeps racing continuations in other processes: each task is continued or cancelled, never both', async () => {
    const path = join(dir, 'abandon.db');
    // The tasks were last written 30 days ago; the children's sweeps end those idle for 29 days (wall clock).
    const past = new ManualClock(Date.now() - 30 * 86_400_000);
    const store = new SqliteTaskStore({ path, clock: past });
    await store.migrate();
    const scope = { tenant: 'acme', owner: 'alice' };
    for (let i = 0; i < PER_PROCESS; i++) {
      const task = { id: `w${i}`, contextId: 'ctx', status: { state: 'TASK_STATE_SUBMITTED' as const } };
      await store.createTask(scope, { task });
      const waiting = { ...task, status: { state: 'TASK_STATE_INPUT_REQUIRED' as const } };
      expect((await store.commit(scope, task.id, { expectFence: 1, task: waiting, events: [] })).ok).toBe(
        true,
      );
    }
    // Half the processes sweep, half continue every task.
    const results = await race(path, (i) => (i % 2 === 0 ? 'sweep' : 'continue'));
    const abandoned = results
      .filter((r) => r.startsWith('abandoned:'))
      .reduce((sum, r) => sum + Number(r.slice('abandoned:'.length)), 0);
    let cancelled = 0;
    for (let i = 0; i < PER_PROCESS; i++) {
      const rec = await store.getTask(scope, `w${i}`);
      const wins = results.filter((r) => r === `ok:w${i}`).length;
      expect(rec?.fence).toBe(2);
      expect(await store.readEvents(scope, `w${i}`, 0)).toHaveLength(1);
      if (rec?.task.status.state === 'TASK_STATE_CANCELED') {
        cancelled++;
        expect(wins).toBe(0);
      } else {
        expect(rec?.task.status.state).toBe('TASK_STATE_WORKING');
        expect(wins).toBe(1);
      }
    }
    expect(abandoned).toBe(cancelled);
    await store.close();
  });

  it(`${PROCESSES / 2} processes recover a lapsed lease while ${PROCESSES / 2} renew it as its lost owner: one takeover wins`, async () => {
    const path = join(dir, 'recover.db');
    // The lease lapsed an hour ago by the wall clock the children read.
    const past = new ManualClock(Date.now() - 3_600_000);
    const parent = new SqliteTaskStore({ path, clock: past });
    await parent.migrate();
    const scope = { tenant: 'acme', owner: 'alice' };
    const task = { id: 'leased', contextId: 'ctx', status: { state: 'TASK_STATE_WORKING' as const } };
    await parent.createTask(scope, { task, lease: { owner: 'lost', ttlMs: 1000 } });
    await parent.close();
    const store = new SqliteTaskStore({ path });
    expect(await store.findLapsedLeases(10)).toMatchObject([{ taskId: 'leased', fence: 1 }]);

    const results = await race(path, (i) => (i % 2 === 0 ? 'recover' : 'renew'));
    const recovered = results.filter((r) => r.startsWith('recovered:'));
    expect(recovered).toHaveLength(1);
    expect(results.filter((r) => r === 'stale')).toHaveLength((PROCESSES / 2) * PER_PROCESS - 1);
    const winner = recovered[0]!.slice('recovered:'.length);
    // Whatever renewals landed before the takeover, the takeover's lease is the one that stays.
    const rec = await store.getTask(scope, 'leased');
    expect(rec).toMatchObject({ fence: 2, lease: { owner: winner } });
    expect(await store.renewLease(scope, 'leased', 1, 'lost', 1000)).toBe(false);
    expect(await store.findLapsedLeases(10)).toEqual([]);
    await store.close();
  });

  it(`${PROCESSES} processes x ${PER_PROCESS} records of one step: exactly one recorded, all see its result`, async () => {
    const path = join(dir, 'steps.db');
    const store = new SqliteTaskStore({ path });
    await store.migrate();
    const scope = { tenant: 'acme', owner: 'alice' };
    await store.createTask(scope, {
      task: { id: 'stepped', contextId: 'ctx', status: { state: 'TASK_STATE_WORKING' } },
    });
    const results = await race(path, 'step');
    const recorded = results.filter((r) => r.startsWith('recorded:'));
    expect(recorded).toHaveLength(1);
    const by = recorded[0]!.slice('recorded:'.length);
    expect(results.filter((r) => r === `exists:${by}`)).toHaveLength(PROCESSES * PER_PROCESS - 1);
    expect(await store.getStep(scope, 'stepped', 'charge')).toMatchObject({ fence: 1, result: { by } });
    await store.close();
  });
});
