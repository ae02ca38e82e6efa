/**
 * `a2a-once demo` from start to end: the tree run twice (naive, then a2a-once), the table, and the clean-up that
 * holds however it ends. Every process it starts is in one registry; a normal end, an error and an abort (Ctrl-C)
 * all stop them and remove the temporary directory before `runDemo` settles, and a process exit that skips all
 * that (an uncaught error) still SIGKILLs them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliIO } from '../io.js';
import { ProcessRegistry } from './agent-process.js';
import { amplificationLine, tableLines } from './table.js';
import { CRASH_LEAF, LEAVES, TREE } from './topology.js';
import { startTraceFile } from '../../otel/span-file.js';
import { CALLER_SERVICE, readSpans, spanFile, traceLines } from './trace-tree.js';
import { DEMO_REQUEST, runTree, type RunFigures } from './tree-run.js';
import { createView } from './view.js';

/** What to run. */
export interface DemoOptions {
  /** Kill a leaf's server mid-task in the a2a-once run, and restart it. */
  readonly crash: boolean;
  /** Redraw the tree in place when the output is a terminal. */
  readonly live: boolean;
  /** Trace the a2a-once run and print the tree of its root send's trace (ADR 0096). */
  readonly trace?: boolean;
  /** Aborting it (Ctrl-C) stops the demo: everything is cleaned up and `runDemo` rejects with the reason. */
  readonly signal?: AbortSignal;
}

/** What happened, for the exit code and for tests. */
export interface DemoResult {
  /** 0 when the a2a-once run made one effect per leaf (and, with `crash`, the kill and the resume happened). */
  readonly code: number;
  readonly naive: RunFigures;
  readonly once: RunFigures;
  /** Every process the demo started (all gone when `runDemo` settles). */
  readonly pids: readonly number[];
  /** The temporary directory it used (removed when `runDemo` settles). */
  readonly dir: string;
}

/** How a demo that did not finish failed (or was stopped), with what it had started: all of it cleaned up. */
export class DemoFailure extends Error {
  constructor(
    cause: unknown,
    /** Every process the demo started (all gone by the time this is thrown). */
    readonly pids: readonly number[],
    /** Its temporary directory (removed by the time this is thrown). */
    readonly dir: string,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'DemoFailure';
  }
}

/** Rejects when `signal` aborts; the loser's eventual failure is swallowed, since clean-up follows at once. */
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => undefined);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () =>
      reject(signal.reason instanceof Error ? signal.reason : new Error('the demo was stopped'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Runs the demo, writing to `io`. @throws DemoFailure when it fails or is stopped, after cleaning up */
export async function runDemo(io: CliIO, options: DemoOptions): Promise<DemoResult> {
  const view = createView(io, options.live);
  const dir = mkdtempSync(join(tmpdir(), 'a2a-once-demo-'));
  const registry = new ProcessRegistry();
  const lastResort = () => registry.killAllNow();
  process.on('exit', lastResort);
  // The runs' own signal: aborted by the caller's, and at the end, so nothing of a run outlives the demo.
  const stop = new AbortController();
  const forward = () => stop.abort(options.signal?.reason);
  if (options.signal?.aborted === true) forward();
  options.signal?.addEventListener('abort', forward, { once: true });
  try {
    const leaves = LEAVES.length;
    view.say(
      `a2a-once demo: "${DEMO_REQUEST}" goes to an orchestrator that delegates to 2 agents, each delegating to 2 leaves:`,
    );
    view.say(`${TREE.length} real a2a-once serve processes on loopback, each on its own SQLite file.`);
    view.say(
      'Every link loses the answer to the first attempt of each send, after the agent has done the work.',
    );
    view.say(
      `Each of the ${leaves} leaves pays through a ledger that, like a payment API, deduplicates by key.`,
    );
    view.say();
    const common = { dir, registry, view, signal: stop.signal };

    view.say('1. naive: plain fetch of SendMessage, resent as-is on a network error, no idempotency key');
    const naive = await abortable(runTree({ ...common, mode: 'naive', crash: false }), stop.signal);
    view.say(`   the root task ended ${stateWord(naive.rootState)} (${(naive.ms / 1000).toFixed(1)} s)`);
    await registry.stopAll();
    view.say();

    view.say("2. a2a-once: the user's A2AClient (keyed sends), ctx.delegate in the parents; same leaves");
    if (options.crash)
      view.say(
        `   --crash: ${CRASH_LEAF.label}'s server is killed with SIGKILL after its ledger effect, then restarted`,
      );
    const traced = options.trace === true ? await startTraceFile(spanFile(dir, CALLER_SERVICE)) : undefined;
    const once = await abortable(
      runTree({
        ...common,
        mode: 'once',
        crash: options.crash,
        ...(traced ? { telemetry: traced.telemetry } : {}),
      }),
      stop.signal,
    );
    view.say(`   the root task ended ${stateWord(once.rootState)} (${(once.ms / 1000).toFixed(1)} s)`);
    await registry.stopAll();
    view.say();

    for (const line of tableLines(naive, once)) view.say(line);
    view.say();
    view.say(amplificationLine(naive, once));
    if (traced) {
      view.say();
      view.say(
        'The trace of the a2a-once run (every process exported its spans; replays are the retried sends):',
      );
      const lines = traceLines(readSpans(dir));
      if (lines.length === 0) view.say('   no trace of the root send was written');
      for (const line of lines) view.say(`  ${line}`);
    }
    const problems = check(once, options.crash);
    for (const p of problems) view.say(`UNEXPECTED: ${p}`);
    return { code: problems.length === 0 ? 0 : 1, naive, once, pids: registry.pids, dir };
  } catch (err) {
    throw new DemoFailure(err, registry.pids, dir);
  } finally {
    options.signal?.removeEventListener('abort', forward);
    stop.abort(new Error('the demo ended'));
    await registry.stopAll();
    process.off('exit', lastResort);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `completed` for `TASK_STATE_COMPLETED`. */
function stateWord(state: string): string {
  return state
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace(/_/g, '-');
}

/** What the a2a-once run should have shown and did not. */
function check(once: RunFigures, crash: boolean): string[] {
  const problems: string[] = [];
  if (once.rootState !== 'TASK_STATE_COMPLETED')
    problems.push(`the a2a-once root task ended ${stateWord(once.rootState)}`);
  for (const leaf of LEAVES) {
    const n = once.effects[leaf.id] ?? 0;
    if (n !== 1) problems.push(`${leaf.label} made ${n} ledger effects in the a2a-once run`);
  }
  if (crash && once.kills !== 1) problems.push(`${once.kills} servers were killed instead of 1`);
  if (crash && once.resumed !== 1)
    problems.push(`${once.resumed} tasks were resumed after the restart instead of 1`);
  return problems;
}
