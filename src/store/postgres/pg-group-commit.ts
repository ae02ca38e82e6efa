/**
 * The batch statements of the PostgreSQL store's group commit (ADR 0049): many keyed sends' claims and new tasks in
 * one statement, and many commits in one statement. `StatementGroup` (sql/statement-group.ts) decides what goes
 * together and runs anything a batch does not settle alone; here the items become arrays, a column each, and the
 * rows that come back become each item's outcome.
 */
import type { Scope } from '../scope.js';
import { createdTaskRecord } from '../sql/sql-rows.js';
import { leaseAt } from '../sql/worker-lease.js';
import type { CommitResult, CreateTaskInput, CreateTaskResult, TaskWrite } from '../task-store.js';
import { claimDigest } from '../task-store.js';
import type { KeyCountCache } from '../sql/key-count-cache.js';
import { commitValues, committed, eventTexts } from './pg-commit.js';
import { taskInsertValues } from './pg-create-task.js';
import type { PgQueryable } from './pg-pool-like.js';
import type { PgStatements } from './pg-statements.js';

/** A keyed send on the one-statement path (`canClaimInOneStatement` held). */
export interface ClaimItem {
  readonly scope: Scope;
  readonly input: CreateTaskInput;
  readonly now: number;
}

/** A commit on the pool. */
export interface CommitItem {
  readonly scope: Scope;
  readonly taskId: string;
  readonly write: TaskWrite;
  readonly now: number;
}

/** One array per column: `rows[i][j]` becomes `columns[j][i]`. */
function columns(rows: readonly unknown[][], width: number): unknown[][] {
  return Array.from({ length: width }, (_, j) => rows.map((r) => r[j]));
}

/** Identifies a task across scopes (NUL cannot occur in the parts). */
function rowKey(tenant: unknown, owner: unknown, id: unknown): string {
  return `${String(tenant)}\u0000${String(owner)}\u0000${String(id)}`;
}

/**
 * Claims and creates many keyed sends in one statement. Each outcome is the created record, or null when its key
 * was there already (or taken by another send of the batch): nothing of it was written, and the caller runs the
 * full transaction, which reads the key and says which.
 */
export async function claimAndCreateMany(
  db: PgQueryable,
  sql: PgStatements,
  items: readonly ClaimItem[],
  counts: KeyCountCache | undefined,
): Promise<(CreateTaskResult | null)[]> {
  const leases = items.map((x) => (x.input.lease ? leaseAt(x.input.lease, x.now) : undefined));
  const rows = items.map((x, i) => {
    const claim = x.input.claim!;
    return [
      ...taskInsertValues(x.scope, x.input.task, x.now, leases[i]),
      claim.key,
      claim.messageId,
      claimDigest(claim),
      claim.expiresAt,
    ];
  });
  const { rows: made } = await db.query(sql.claimAndCreateMany, columns(rows, 15));
  const created = new Set(made.map((r) => rowKey(r.tenant, r.owner, r.id)));
  return items.map((x, i) => {
    if (!created.has(rowKey(x.scope.tenant, x.scope.owner, x.input.task.id))) return null;
    counts?.claimed(x.scope);
    return { outcome: 'created', record: createdTaskRecord(x.input.task, x.now, leases[i]) };
  });
}

/**
 * Commits many writes (of different tasks) in one statement. Each outcome is the commit's result, or undefined
 * when its compare-and-set did not match: nothing of it was written, and the caller runs it alone to learn why.
 */
export async function commitMany(
  db: PgQueryable,
  sql: PgStatements,
  items: readonly CommitItem[],
): Promise<(CommitResult | undefined)[]> {
  const rows = items.map((x) => commitValues(x.scope, x.taskId, x.write, x.now));
  const owners: number[] = [];
  const places: number[] = [];
  const events: string[] = [];
  items.forEach((x, i) =>
    eventTexts(x.write).forEach((text, j) => {
      owners.push(i + 1);
      places.push(j + 1);
      events.push(text);
    }),
  );
  const { rows: done } = await db.query(sql.commitTaskMany, [...columns(rows, 18), owners, places, events]);
  const byPlace = new Map(done.map((r) => [Number(r.ord), r]));
  return items.map((x, i) => {
    const row = byPlace.get(i + 1);
    return row ? committed(row, x.write) : undefined;
  });
}

/** The key that keeps two commits of one task out of one batch. */
export function commitKey(x: CommitItem): string {
  return rowKey(x.scope.tenant, x.scope.owner, x.taskId);
}

/**
 * SQLSTATEs a batch statement may meet in normal operation, each item then running alone: a task id that exists
 * (unique violation), and two batches of different replicas locking the same rows in different orders
 * (deadlock), or a serialization failure.
 */
const EXPECTED_BATCH_ERRORS = new Set(['23505', '40P01', '40001']);

/**
 * Says, once per kind of error, that a batch statement failed for a reason the store does not expect. Nothing is
 * lost (every item runs alone and gets its own outcome), but a batch that keeps failing would silently cost the
 * group commit, so it must not pass without a line. The store has no logger of its own: a process warning goes to
 * stderr, and `process.on('warning')` can route it.
 */
const warned = new Set<string>();
export function logBatchFallback(kind: string, err: unknown, size: number): void {
  const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : 'unknown';
  if (EXPECTED_BATCH_ERRORS.has(code) || warned.has(`${kind}:${code}`)) return;
  warned.add(`${kind}:${code}`);
  const message = err instanceof Error ? err.message : String(err);
  process.emitWarning(
    `a2a-once PostgreSQL store: a batch of ${size} ${kind} failed (${code}: ${message}); each runs alone`,
    { code: 'A2A_ONCE_GROUP_COMMIT' },
  );
}
