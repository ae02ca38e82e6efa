/**
 * One run of the demo's tree: seven `a2a-once serve` processes (the `tree` agent inside, the `ledger` agent at the
 * leaves), each behind a flaky link, one send to the root, and the figures counted from what happened:
 * - effects per leaf: the ledger's own count (one per distinct side-effect key);
 * - tasks per node: each server's store, through ListTasks;
 * - retries per link: the relays' count of attempts beyond the first of each send;
 * - kills and resumed tasks (`--crash`): the processes the demo killed, and what the restarted server said it
 *   recovered.
 * The two runs differ only in how callers send: `naive` (plain fetch, resent as-is without a key) or `once` (the
 * `A2AClient`'s keyed sends at the top, `ctx.delegate` in the parents). The leaves run the same code in both.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { A2AClient } from '../../client/index.js';
import type { Telemetry } from '../../telemetry/telemetry.js';
import { TRACE_FILE_ENV } from '../../otel/span-file.js';
import {
  LEDGER_URL_ENV,
  naiveSend,
  plainMessage,
  TREE_CHILDREN_ENV,
  TREE_MODE_ENV,
  type TreeMode,
} from '../agents/index.js';
import {
  recoveredOnStartup,
  startAgentProcess,
  type AgentProcess,
  type ProcessRegistry,
} from './agent-process.js';
import { allEnded, takeCensus, type Census } from './census.js';
import { startLedgerService, type LedgerService } from './ledger-service.js';
import { startRelay, type Relay } from './relay.js';
import { spanFile } from './trace-tree.js';
import { CRASH_LEAF, LEAVES, ROOT, TREE, type TreeNode } from './topology.js';
import type { DemoView, NodeRow, TreeRows } from './view.js';

/**
 * The worker lease of every demo server: short, so a killed leaf's task is free to recover about a second after
 * the kill instead of the default 30 s.
 */
export const DEMO_LEASE_MS = 1_000;

/** How often the live view asks the servers for their tasks. */
const REFRESH_MS = 150;

/** The caller's client at the top of the `once` run: the same generous, keyed-only retries the parents use. */
const CALLER_RETRY = { maxAttempts: 10, backoff: { initialMs: 50, maxMs: 500 } } as const;

/** What the user asks the orchestrator. */
export const DEMO_REQUEST = 'pay the quarterly invoices';

/** What to run. */
export interface TreeRunOptions {
  readonly mode: TreeMode;
  /** Kill the crash leaf's server mid-task and restart it (the `once` run of `--crash`). */
  readonly crash: boolean;
  /** Where the servers' SQLite files go. */
  readonly dir: string;
  readonly registry: ProcessRegistry;
  readonly view: DemoView;
  readonly signal: AbortSignal;
  /** `--trace`: the caller's telemetry; each server writes its spans to its file in `dir` (`spanFile`). */
  readonly telemetry?: Telemetry;
}

/** The figures of one run, every one counted. */
export interface RunFigures {
  readonly mode: TreeMode;
  /** The state of the root task, as the caller's last answer gave it. */
  readonly rootState: string;
  /** Effects the ledger made, per leaf id. */
  readonly effects: Readonly<Record<string, number>>;
  /** Posts the ledger received, per leaf id (deduplicated ones included). */
  readonly ledgerRequests: Readonly<Record<string, number>>;
  /** Tasks each server holds at the end, per node id. */
  readonly tasks: Readonly<Record<string, number>>;
  /** Retries each link saw, per node id. */
  readonly retries: Readonly<Record<string, number>>;
  /** Answers the links cut. */
  readonly dropped: number;
  /** Servers killed with SIGKILL. */
  readonly kills: number;
  /** Tasks the restarted servers resumed at start-up. */
  readonly resumed: number;
  /** The final rows, as the view showed them. */
  readonly rows: TreeRows;
  readonly ms: number;
}

const sum = (r: Readonly<Record<string, number>>) => Object.values(r).reduce((a, b) => a + b, 0);

/** Totals of a run. */
export function totals(f: RunFigures): { effects: number; tasks: number; retries: number } {
  return { effects: sum(f.effects), tasks: sum(f.tasks), retries: sum(f.retries) };
}

/** The label the view and the table use for a run. */
export function modeLabel(mode: TreeMode): string {
  return mode === 'naive' ? 'naive' : 'a2a-once';
}

/** Runs the tree once. The processes it started stay in `registry` for the caller to stop. */
export async function runTree(o: TreeRunOptions): Promise<RunFigures> {
  const started = Date.now();
  const label = modeLabel(o.mode);
  const notes: Record<string, string> = {};
  const censuses: Record<string, Census | undefined> = {};
  const procs = new Map<string, AgentProcess>();
  const relays = new Map<string, Relay>();
  let ledger: LedgerService | undefined;
  let kills = 0;
  let resumed = 0;
  let refreshing = true;
  let ticker: Promise<void> = Promise.resolve();
  /** `note` goes on the node's row, `line` (default: the note) is the plain-output line. */
  const event = (node: TreeNode, note: string, line = note) => {
    notes[node.id] = note;
    o.view.event(`${label}: ${node.label} ${line}`);
  };

  const rows = (): TreeRows => {
    const out: Record<string, NodeRow> = {};
    for (const node of TREE) {
      const census = censuses[node.id];
      const isLeaf = node.children.length === 0;
      out[node.id] = {
        tasks: census?.tasks,
        states: census?.states ?? {},
        retries: relays.get(node.id)?.counts().retries ?? 0,
        ...(isLeaf ? { effects: ledger?.counts(node.id).effects ?? 0 } : {}),
        ...(notes[node.id] !== undefined ? { note: notes[node.id]! } : {}),
      };
    }
    return out;
  };
  /** Asks every server for its tasks; one that cannot answer (down) shows `?` until it can. */
  const refresh = async () => {
    await Promise.all(
      TREE.map(async (node) => {
        const proc = procs.get(node.id);
        censuses[node.id] =
          proc === undefined ? undefined : await takeCensus(proc.url, o.signal).catch(() => undefined);
      }),
    );
  };

  try {
    ledger = await startLedgerService();
    for (const node of TREE) relays.set(node.id, await startRelay());
    const argsOf = (node: TreeNode) => [
      '--agent',
      node.children.length === 0 ? 'ledger' : 'tree',
      '--store',
      `sqlite:${join(o.dir, `${o.mode}-${node.id}.db`)}`,
      '--lease',
      `${DEMO_LEASE_MS}ms`,
      '--retention-interval',
      'off',
    ];
    const envOf = (node: TreeNode): Record<string, string> =>
      node.children.length === 0
        ? { [LEDGER_URL_ENV]: ledger!.baseFor(node.id) }
        : {
            [TREE_CHILDREN_ENV]: node.children.map((c) => relays.get(c)!.url).join(','),
            [TREE_MODE_ENV]: o.mode,
          };
    const traceEnvOf = (node: TreeNode): Record<string, string> =>
      o.telemetry ? { [TRACE_FILE_ENV]: spanFile(o.dir, node.id) } : {};
    // All at once: a parent learns its children's links now and reads their cards on its first turn.
    await Promise.all(
      TREE.map(async (node) => {
        const proc = await startAgentProcess(o.registry, [...argsOf(node), '--port', '0'], {
          ...envOf(node),
          ...traceEnvOf(node),
        });
        procs.set(node.id, proc);
        relays.get(node.id)!.connect(proc.url);
      }),
    );
    o.view.event(
      `${label}: ${TREE.length} a2a-once serve processes listening, each behind a link that loses first answers`,
    );

    if (o.view.live) {
      ticker = (async () => {
        while (refreshing && !o.signal.aborted) {
          await refresh();
          if (refreshing) o.view.update(rows());
          await sleep(REFRESH_MS).catch(() => undefined);
        }
      })();
    }

    const crashed =
      o.crash && o.mode === 'once'
        ? crashAndRestart(CRASH_LEAF, ledger.holdNextEffect(CRASH_LEAF.id))
        : Promise.resolve();
    async function crashAndRestart(leaf: TreeNode, effectMade: Promise<void>): Promise<void> {
      await effectMade;
      const before = procs.get(leaf.id)!;
      event(
        leaf,
        'effect made: killing',
        'made its ledger effect: killing its server before the task finishes',
      );
      await before.kill9();
      kills++;
      event(leaf, 'killed (SIGKILL) mid-task', `killed (SIGKILL, pid ${before.pid}) mid-task`);
      // Once its lease has lapsed, start-up recovery takes the task over (ADR 0037).
      await sleep(DEMO_LEASE_MS + 300, undefined, { signal: o.signal });
      const after = await startAgentProcess(o.registry, [...argsOf(leaf), '--port', String(before.port)], {
        ...envOf(leaf),
        ...traceEnvOf(leaf),
      });
      procs.set(leaf.id, after);
      let recovered = recoveredOnStartup(after.stderr());
      for (let i = 0; recovered === undefined && i < 20; i++) {
        await sleep(50, undefined, { signal: o.signal });
        recovered = recoveredOnStartup(after.stderr());
      }
      resumed += recovered?.resumed ?? 0;
      const what = `${recovered?.resumed ?? 0} task resumed at start-up`;
      event(
        leaf,
        `killed, restarted: ${what}`,
        `restarted (pid ${after.pid}, same port and SQLite file): ${what}`,
      );
    }

    const rootRelay = relays.get(ROOT.id)!.url;
    const ask = async (): Promise<string> => {
      if (o.mode === 'naive')
        return (await naiveSend(rootRelay, plainMessage(DEMO_REQUEST), o.signal)).task.status.state;
      const client = await A2AClient.fromCardUrl(rootRelay, {
        retry: CALLER_RETRY,
        signal: o.signal,
        ...(o.telemetry ? { telemetry: o.telemetry } : {}),
      });
      const answer = await client.send(DEMO_REQUEST, { signal: o.signal });
      return 'task' in answer ? answer.task.status.state : 'a message';
    };
    // Together, so a failed restart ends the run at once instead of after the caller's retries.
    const [rootState] = await Promise.all([ask(), crashed]);

    // Every task below has ended by now (a parent ends after its children); wait out any straggler all the same.
    refreshing = false;
    await ticker;
    for (let i = 0; i < 40; i++) {
      await refresh();
      if (TREE.every((n) => censuses[n.id] !== undefined && allEnded(censuses[n.id]!))) break;
      await sleep(REFRESH_MS, undefined, { signal: o.signal });
    }
    const final = rows();
    o.view.settle(final);
    const byNode = (f: (n: TreeNode) => number, nodes: readonly TreeNode[] = TREE) =>
      Object.fromEntries(nodes.map((n) => [n.id, f(n)]));
    return {
      mode: o.mode,
      rootState,
      effects: byNode((n) => ledger!.counts(n.id).effects, LEAVES),
      ledgerRequests: byNode((n) => ledger!.counts(n.id).requests, LEAVES),
      tasks: byNode((n) => censuses[n.id]?.tasks ?? 0),
      retries: byNode((n) => relays.get(n.id)!.counts().retries),
      dropped: [...relays.values()].reduce((a, r) => a + r.counts().dropped, 0),
      kills,
      resumed,
      rows: final,
      ms: Date.now() - started,
    };
  } finally {
    refreshing = false;
    await ticker.catch(() => undefined);
    await Promise.all([...relays.values()].map((r) => r.close()));
    await ledger?.close();
  }
}
