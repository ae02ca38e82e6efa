/**
 * What the demo shows while a tree runs. On a terminal, one block redrawn in place: the tree, and for each node
 * the tasks its server holds and their states, the retries its link saw, the effects its ledger account got, and
 * what happened to its process. Redrawing moves the cursor up over the previous block and clears below it (the
 * ANSI sequences node:readline's `moveCursor` and `clearScreenDown` write), so no dependency is needed and the
 * output still goes through `CliIO`. In a pipe or a file: plain lines, one per event, and the tree once a run ends.
 */
import type { CliIO } from '../io.js';
import { TREE, nodeById, type TreeNode } from './topology.js';

/** What the view shows of one node. */
export interface NodeRow {
  /** Tasks its server holds (ListTasks), or undefined while it cannot be asked (not started, or down). */
  readonly tasks: number | undefined;
  /** Tasks per state, as ListTasks reported them (`TASK_STATE_COMPLETED` -> n). */
  readonly states: Readonly<Record<string, number>>;
  /** Retries its link saw. */
  readonly retries: number;
  /** Effects the ledger made for it (leaves only). */
  readonly effects?: number;
  /** What happened to its process, when anything did (`killed (SIGKILL)`). */
  readonly note?: string;
}

/** The rows of a tree, by node id. */
export type TreeRows = Readonly<Record<string, NodeRow>>;

/** The demo's view. */
export interface DemoView {
  /** Whether it redraws a live block (a terminal), so there is a point in refreshing it. */
  readonly live: boolean;
  /** A line that stays: a heading, or an event in plain mode. */
  say(line?: string): void;
  /** Something that happened, worth a line of its own in plain mode (on a terminal the rows' notes show it). */
  event(line: string): void;
  /** The live block, redrawn in place on a terminal; nothing in plain mode. */
  update(rows: TreeRows): void;
  /** The final block of a run: drawn in place of the live one on a terminal, printed once in plain mode. */
  settle(rows: TreeRows): void;
}

const ESC = '\u001b[';

/** `├─ ` / `└─ ` with the continuation lines of the node's ancestors. */
function branch(node: TreeNode): string {
  if (node.depth === 0) return '';
  const parts: string[] = [];
  let current = node;
  while (current.depth > 0) {
    const parent = TREE.find((n) => n.children.includes(current.id))!;
    const last = parent.children[parent.children.length - 1] === current.id;
    parts.unshift(current === node ? (last ? '└─ ' : '├─ ') : last ? '   ' : '│  ');
    current = parent;
  }
  return parts.join('');
}

/** `3 completed, 1 working`, or `-` for no task. */
export function statesText(states: Readonly<Record<string, number>>): string {
  const parts = Object.entries(states)
    .filter(([, n]) => n > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([state, n]) =>
        `${n} ${state
          .replace(/^TASK_STATE_/, '')
          .toLowerCase()
          .replace(/_/g, '-')}`,
    );
  return parts.length === 0 ? '-' : parts.join(', ');
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The lines of the tree block. */
export function treeLines(rows: TreeRows): string[] {
  return TREE.map((node) => {
    const row = rows[node.id];
    const name = (branch(node) + nodeById(node.id).label).padEnd(18);
    if (row === undefined) return `${name} starting`;
    const tasks = row.tasks === undefined ? '    ? tasks' : plural(row.tasks, 'task').padStart(11);
    const cells = [
      name,
      tasks,
      `  ${statesText(row.states).padEnd(24)}`,
      plural(row.retries, 'retry', 'retries').padStart(11),
      row.effects === undefined ? '' : `  ${plural(row.effects, 'ledger effect').padStart(17)}`,
      row.note === undefined ? '' : `  ${row.note}`,
    ];
    return cells.join('').trimEnd();
  });
}

/** A view on `io`: live when `live` and `io` is a terminal, plain otherwise. */
export function createView(io: CliIO, live: boolean): DemoView {
  if (!(live && io.isTTY)) {
    return {
      live: false,
      say: (line = '') => io.out(line),
      event: (line) => io.out(`  ${line}`),
      update: () => undefined,
      settle: (rows) => treeLines(rows).forEach((l) => io.out(`  ${l}`)),
    };
  }
  let drawn = 0; // lines of the live block on screen, to move back over
  const draw = (rows: TreeRows) => {
    const lines = treeLines(rows).map((l) => `  ${l}`);
    const back = drawn > 0 ? `${ESC}${drawn}A\r${ESC}J` : '';
    lines.forEach((l, i) => io.out(i === 0 ? back + l : l));
    drawn = lines.length;
  };
  return {
    live: true,
    say: (line = '') => {
      drawn = 0;
      io.out(line);
    },
    event: () => undefined,
    update: draw,
    settle: (rows) => {
      draw(rows);
      drawn = 0;
    },
  };
}
