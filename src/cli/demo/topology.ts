/**
 * The demo's delegation tree: an orchestrator, two agents under it, two leaves under each (seven agents, three
 * levels). Only the shape lives here; which process serves a node and what it counted live with the run.
 */

/** One node of the tree. */
export interface TreeNode {
  /** Short id, used for file names and ledger paths (`a1`). */
  readonly id: string;
  /** What the view calls it (`leaf A1`). */
  readonly label: string;
  /** Ids of its children, in delegation order; empty for a leaf. */
  readonly children: readonly string[];
  /** Distance from the root: 0 for the orchestrator. */
  readonly depth: number;
}

/** The tree, root first, each node before its children (the order the view draws it in). */
export const TREE: readonly TreeNode[] = [
  { id: 'orch', label: 'orchestrator', children: ['a', 'b'], depth: 0 },
  { id: 'a', label: 'agent A', children: ['a1', 'a2'], depth: 1 },
  { id: 'a1', label: 'leaf A1', children: [], depth: 2 },
  { id: 'a2', label: 'leaf A2', children: [], depth: 2 },
  { id: 'b', label: 'agent B', children: ['b1', 'b2'], depth: 1 },
  { id: 'b1', label: 'leaf B1', children: [], depth: 2 },
  { id: 'b2', label: 'leaf B2', children: [], depth: 2 },
];

/** The root. */
export const ROOT: TreeNode = TREE[0]!;

/** The leaves: the nodes whose agent makes the side effect. */
export const LEAVES: readonly TreeNode[] = TREE.filter((n) => n.children.length === 0);

/** The leaf whose server `--crash` kills mid-task: the last one, so the view shows it at the bottom. */
export const CRASH_LEAF: TreeNode = LEAVES[LEAVES.length - 1]!;

/** The node with id `id`. @throws Error for an unknown id (a bug in this file) */
export function nodeById(id: string): TreeNode {
  const node = TREE.find((n) => n.id === id);
  if (node === undefined) throw new Error(`no tree node ${id}`);
  return node;
}
