/**
 * Worker leases on PostgreSQL (docs/semantics.md §4, ADR 0037): a renewal is one fenced UPDATE, the census and the
 * listing of lapsed leases one indexed SELECT each; the listing carries each task's record (ADR 0131).
 */
import type { LapsedTask, LeaseCensus } from '../records.js';
import type { Scope } from '../scope.js';
import { censusOf, toLapsedTask, type CensusRow, type LapsedRow } from '../sql/sql-rows.js';
import { checkLimit, checkOwnerAndTtl } from '../sql/worker-lease.js';
import type { PgQueryable } from './pg-pool-like.js';
import type { PgStatements } from './pg-statements.js';

/** Extends `owner`'s lease on the task under `fence` to `now + ttlMs`; false when it no longer holds it. */
export async function renewLeasePg(
  q: PgQueryable,
  sql: PgStatements,
  scope: Scope,
  taskId: string,
  lease: { readonly fence: number; readonly owner: string; readonly ttlMs: number },
  now: number,
): Promise<boolean> {
  checkOwnerAndTtl('renewLease', lease.owner, lease.ttlMs);
  const args = [scope.tenant, scope.owner, taskId, lease.fence, lease.owner, now + lease.ttlMs];
  return (await q.query(sql.renewLease, args)).rows.length > 0;
}

/** The running tasks still leased as of `now`, and when the first lease lapses. */
export async function leaseCensusPg(q: PgQueryable, sql: PgStatements, now: number): Promise<LeaseCensus> {
  const { rows } = await q.query(sql.leaseCensus, [now]);
  return censusOf(rows[0] as unknown as CensusRow);
}

/** Up to `limit` running tasks whose lease lapsed as of `now`, oldest lapse first, each with its record. */
export async function findLapsedLeasesPg(
  q: PgQueryable,
  sql: PgStatements,
  limit: number,
  now: number,
): Promise<LapsedTask[]> {
  checkLimit('findLapsedLeases', limit);
  const { rows } = await q.query(sql.findLapsedLeases, [now, limit]);
  return rows.map((r) => toLapsedTask(r as unknown as LapsedRow));
}
