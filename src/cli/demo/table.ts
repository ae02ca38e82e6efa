/**
 * The demo's closing table: both runs side by side, every cell a counted figure, and one line that says what the
 * duplication at the top turned into at the leaves.
 */
import { LEAVES } from './topology.js';
import { modeLabel, totals, type RunFigures } from './tree-run.js';

/** `(8 each)`, or `(8, 8, 8, 7)` when the leaves differ. */
function perLeaf(f: RunFigures): string {
  const counts = LEAVES.map((l) => f.effects[l.id] ?? 0);
  return counts.every((n) => n === counts[0]) ? `(${counts[0]} each)` : `(${counts.join(', ')})`;
}

/** The amplification line: `naive: 32 effects for 4 leaves (8 each); a2a-once: 4 (1 each)`. */
export function amplificationLine(naive: RunFigures, once: RunFigures): string {
  return (
    `${modeLabel(naive.mode)}: ${totals(naive).effects} effects for ${LEAVES.length} leaves ${perLeaf(naive)}; ` +
    `${modeLabel(once.mode)}: ${totals(once).effects} ${perLeaf(once)}`
  );
}

/** The table's lines; the crash rows only when a server was killed. */
export function tableLines(naive: RunFigures, once: RunFigures): string[] {
  const runs = [naive, once];
  const rows: [string, (f: RunFigures) => number | string][] = [
    ['side effects at the leaves', (f) => totals(f).effects],
    ['tasks created', (f) => totals(f).tasks],
    ['retries made', (f) => totals(f).retries],
    ['answers lost on the links', (f) => f.dropped],
  ];
  if (runs.some((f) => f.kills > 0)) {
    const deduplicated = (f: RunFigures) =>
      LEAVES.reduce((a, l) => a + (f.ledgerRequests[l.id] ?? 0) - (f.effects[l.id] ?? 0), 0);
    rows.push(
      ['servers killed mid-task (SIGKILL)', (f) => f.kills],
      ['tasks resumed after the restart', (f) => f.resumed],
      ['ledger posts deduplicated by key', deduplicated],
    );
  }
  rows.push(['seconds', (f) => (f.ms / 1000).toFixed(1)]);
  const width = Math.max(...rows.map(([name]) => name.length));
  const header = `${''.padEnd(width)}  ${runs.map((f) => modeLabel(f.mode).padStart(9)).join('  ')}`;
  return [
    header,
    ...rows.map(
      ([name, cell]) => `${name.padEnd(width)}  ${runs.map((f) => String(cell(f)).padStart(9)).join('  ')}`,
    ),
  ];
}
