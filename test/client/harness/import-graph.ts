/**
 * The relative-import graph of a source folder, read off the `import … from './x.js'` and `export … from`
 * statements (type-only imports included: they couple files as much as value imports do). Used to hold the
 * client to its layout (ADR 0033): folder dependency direction, no cycles, and the longest import chain.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Files (relative to the root, `/`-separated) and the files of the same root each one imports. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

const IMPORT = /^(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)'/gms;

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Reads the graph of every `.ts` file under `root`; imports that leave `root` are not edges. */
export function readImportGraph(root: string): ImportGraph {
  const base = resolve(root);
  const graph = new Map<string, string[]>();
  for (const file of tsFiles(base)) {
    const deps = new Set<string>();
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const target = resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts'));
      if (target.startsWith(base + '/')) deps.add(relative(base, target));
    }
    graph.set(relative(base, file), [...deps]);
  }
  return graph;
}

/** Imports that leave `root` (`../../protocol/x.js` from `root/a/b.ts` is `../protocol/x.ts`), per file. */
export function outsideImports(root: string): Map<string, string[]> {
  const base = resolve(root);
  const out = new Map<string, string[]>();
  for (const file of tsFiles(base)) {
    const leaving: string[] = [];
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const target = resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts'));
      if (!target.startsWith(base + '/')) leaving.push(relative(base, target));
    }
    out.set(relative(base, file), leaving);
  }
  return out;
}

/** A cycle of imports, if there is one (as the files along it). */
export function findCycle(graph: ImportGraph): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (f: string): string[] | undefined => {
    if (state.get(f) === 'done') return undefined;
    if (state.get(f) === 'open') return [...path.slice(path.indexOf(f)), f];
    state.set(f, 'open');
    path.push(f);
    for (const d of graph.get(f) ?? []) {
      const cycle = visit(d);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(f, 'done');
    return undefined;
  };
  for (const f of graph.keys()) {
    const cycle = visit(f);
    if (cycle) return cycle;
  }
  return undefined;
}

/** The longest chain of imports, as the files along it (the graph must have no cycle). */
export function longestChain(graph: ImportGraph): string[] {
  const memo = new Map<string, string[]>();
  const from = (f: string): string[] => {
    const known = memo.get(f);
    if (known) return known;
    let best: string[] = [];
    for (const d of graph.get(f) ?? []) {
      const chain = from(d);
      if (chain.length > best.length) best = chain;
    }
    const chain = [f, ...best];
    memo.set(f, chain);
    return chain;
  };
  let top: string[] = [];
  for (const f of graph.keys()) if (from(f).length > top.length) top = from(f);
  return top;
}

/** The folder of a file (`.` for the root). */
export function folderOf(file: string): string {
  const at = file.indexOf('/');
  return at === -1 ? '.' : file.slice(0, at);
}
