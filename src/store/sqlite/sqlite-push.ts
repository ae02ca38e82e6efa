/**
 * Push delivery cursors in the SQLite store (ADR 0045), run inside the store's IMMEDIATE transactions: a claim's
 * select and update cannot interleave with another process's claim, and every outcome is one conditional UPDATE
 * on the holder and the cursor's next event.
 */
import type { Statement } from 'better-sqlite3';
import type { PushDelivery, PushDeliveryState, PushOutcome } from '../push-delivery.js';
import type { Scope } from '../scope.js';
import {
  toPushDelivery,
  toPushDeliveryState,
  type PushClaimRow,
  type PushStateRow,
} from '../sql/push-rows.js';
import { SQL } from './sqlite-statements.js';

type Stmt = (sql: string) => Statement;

/** Whether any webhook could be claimed now: a read, so an idle poll takes no write lock. */
export function anyClaimable(stmt: Stmt, now: number): boolean {
  return stmt(SQL.anyClaimablePush).get({ now }) !== undefined;
}

/** Claims due cursors for `holder` (inside a transaction). */
export function claimTx(
  stmt: Stmt,
  holder: string,
  until: number,
  limit: number,
  now: number,
): PushDelivery[] {
  const rows = stmt(SQL.claimablePush).all({ now, limit }) as PushClaimRow[];
  const claim = stmt(SQL.claimPush);
  return rows.map((r) => {
    claim.run({ tenant: r.tenant, owner: r.owner, taskId: r.task_id, configId: r.id, holder, until });
    return toPushDelivery(r);
  });
}

/**
 * Records an outcome under the claim (inside a transaction); false when the claim or the event is not current.
 * An outcome that changes nothing is looked for as already landed (its answer was lost): true then (ADR 0056).
 */
export function recordTx(
  stmt: Stmt,
  key: Scope & { taskId: string; configId: string; holder: string },
  outcome: PushOutcome,
  error: string | null,
  now: number,
): boolean {
  const landed = (sql: string, args: object): boolean => stmt(sql).get(args) !== undefined;
  switch (outcome.kind) {
    case 'released':
      return stmt(SQL.pushReleased).run(key).changes > 0 || landed(SQL.pushReleasedLanded, key);
    case 'sending':
      return (
        stmt(SQL.pushSending).run({ ...key, seq: outcome.seq, until: now + outcome.claimMs }).changes > 0
      );
    case 'delivered':
      return (
        stmt(SQL.pushDelivered).run({ ...key, seq: outcome.seq, now, until: now + outcome.claimMs }).changes >
        0
      );
    case 'failed': {
      const args = { ...key, seq: outcome.seq, retryAt: outcome.retryAt };
      return (
        stmt(SQL.pushFailed).run({ ...args, now, error }).changes > 0 || landed(SQL.pushFailedLanded, args)
      );
    }
    case 'given-up': {
      const through = outcome.through === 'event' ? outcome.seq : null;
      const args = { ...key, seq: outcome.seq, through, now, reason: outcome.reason, error };
      return (
        stmt(SQL.pushGivenUp).run(args).changes > 0 ||
        landed(SQL.pushGivenUpLanded, { ...key, seq: outcome.seq })
      );
    }
  }
}

/** Where delivery to a config stands. */
export function selectState(
  stmt: Stmt,
  scope: Scope,
  taskId: string,
  configId: string,
): PushDeliveryState | undefined {
  const row = stmt(SQL.pushState).get({ tenant: scope.tenant, owner: scope.owner, taskId, configId }) as
    PushStateRow | undefined;
  return row ? toPushDeliveryState(row) : undefined;
}
