/**
 * `a2a-once demo` end to end: seven real `serve` processes (the built CLI, dist/), links that lose first answers,
 * the ledger. The figures come from the run itself (ledger, stores, links), so these tests check what actually
 * happened: 8 effects per leaf without keys, 1 with a2a-once, 1 also when a leaf's server is killed mid-task. And
 * the demo leaves nothing behind: every process it started is gone, its directory removed, however it ends.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { DemoFailure, runDemo, type DemoResult } from '../../src/cli/demo/runner.js';
import { CRASH_LEAF, LEAVES, TREE } from '../../src/cli/demo/topology.js';
import { totals } from '../../src/cli/demo/tree-run.js';
import { capture } from '../cli/capture.js';
import { CLI_PATH, cliBuilt } from './serve-process.js';
import { processAlive as alive } from '../helpers/process-alive.js';

const byId = (ids: readonly string[], n: number) => Object.fromEntries(ids.map((id) => [id, n]));
const leafIds = LEAVES.map((l) => l.id);

/** Nothing left behind: 7 processes per run (plus a restart), all gone, and the directory removed. */
function expectCleanedUp(result: DemoResult, started: number): void {
  expect(result.pids).toHaveLength(started);
  expect(result.pids.filter(alive)).toEqual([]);
  expect(existsSync(result.dir)).toBe(false);
}

describe.skipIf(!cliBuilt)('a2a-once demo', () => {
  it('naive: every leaf pays 8 times; a2a-once: once; counted, and nothing left behind', async () => {
    const io = capture(false);
    const result = await runDemo(io, { crash: false, live: false });
    const { naive, once } = result;

    expect(naive.effects).toEqual(byId(leafIds, 8));
    expect(naive.tasks).toEqual({ orch: 2, a: 4, b: 4, a1: 8, a2: 8, b1: 8, b2: 8 });
    // The root's first answer lost (1), each agent's per send (2 sends each), each leaf's (4 sends each).
    expect(naive.retries).toEqual({ orch: 1, a: 2, b: 2, a1: 4, a2: 4, b1: 4, b2: 4 });
    expect(naive.rootState).toBe('TASK_STATE_COMPLETED');

    expect(once.effects).toEqual(byId(leafIds, 1));
    expect(once.tasks).toEqual(
      byId(
        TREE.map((n) => n.id),
        1,
      ),
    );
    expect(once.retries).toEqual(
      byId(
        TREE.map((n) => n.id),
        1,
      ),
    );
    expect(once.kills).toBe(0);
    expect(once.rootState).toBe('TASK_STATE_COMPLETED');
    expect(result.code).toBe(0);

    expect(io.lines).toContain('naive: 32 effects for 4 leaves (8 each); a2a-once: 4 (1 each)');
    const row = (name: string) =>
      io.lines
        .find((l) => l.startsWith(name))
        ?.split(/\s{2,}/)
        .slice(1);
    expect(row('side effects at the leaves')).toEqual(['32', '4']);
    expect(row('tasks created')).toEqual(['42', '7']);
    expect(row('retries made')).toEqual(['21', '7']);
    // Plain lines in a pipe: no cursor movement.
    expect(io.lines.join('\n')).not.toContain('\u001b[');
    expectCleanedUp(result, 14);
  }, 60_000);

  it('--crash: a leaf killed after its effect is restarted, resumed, and still pays once', async () => {
    const io = capture(false);
    const result = await runDemo(io, { crash: true, live: false });
    const { naive, once } = result;

    expect(naive.effects).toEqual(byId(leafIds, 8));
    expect(naive.kills).toBe(0);
    expect(once.effects).toEqual(byId(leafIds, 1));
    expect(once.kills).toBe(1);
    expect(once.resumed).toBe(1);
    // The resumed turn posted again under the same side-effect key, and the ledger deduplicated it.
    expect(once.ledgerRequests[CRASH_LEAF.id]).toBe(2);
    expect(once.tasks[CRASH_LEAF.id]).toBe(1);
    expect(totals(once).tasks).toBe(TREE.length);
    expect(once.rootState).toBe('TASK_STATE_COMPLETED');
    expect(result.code).toBe(0);

    const out = io.lines.join('\n');
    expect(out).toMatch(new RegExp(`${CRASH_LEAF.label} killed \\(SIGKILL, pid \\d+\\) mid-task`));
    expect(out).toMatch(new RegExp(`${CRASH_LEAF.label} restarted .*: 1 task resumed at start-up`));
    expect(
      io.lines
        .find((l) => l.startsWith('servers killed mid-task'))
        ?.split(/\s{2,}/)
        .slice(1),
    ).toEqual(['0', '1']);
    expectCleanedUp(result, 15);
  }, 60_000);

  it('stopped half-way (Ctrl-C): rejects, and every process and the directory are gone', async () => {
    const io = capture(false);
    const stop = new AbortController();
    // Stopped as soon as the first run's servers listen, the way Ctrl-C reaches the command.
    const watching = {
      ...io,
      out: (line: string) => {
        io.out(line);
        if (line.includes('serve processes listening')) stop.abort(new Error('interrupted'));
      },
    };
    const failure = await runDemo(watching, { crash: false, live: false, signal: stop.signal }).catch(
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(DemoFailure);
    const { pids, dir, message } = failure as DemoFailure;
    expect(message).toBe('interrupted');
    expect(pids).toHaveLength(TREE.length);
    expect(pids.filter(alive)).toEqual([]);
    expect(existsSync(dir)).toBe(false);
  }, 30_000);

  it('--help lists --crash and --no-live', async () => {
    const io = capture(false);
    expect(await main(['demo', '--help'], io)).toBe(0);
    const help = io.lines.join('\n');
    expect(help).toContain('--crash');
    expect(help).toContain('--no-live');
  });

  it('`node dist/cli/bin.js demo` exits 0 and prints the table, and no trace', async () => {
    const child = spawn(process.execPath, [CLI_PATH, 'demo'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/side effects at the leaves\s+32\s+4/);
    expect(stdout).toContain('naive: 32 effects for 4 leaves (8 each); a2a-once: 4 (1 each)');
    // The trace is printed only when asked for (`--trace`, test/cli/demo-trace.test.ts).
    expect(stdout).not.toContain('The trace of');
  }, 60_000);
});
