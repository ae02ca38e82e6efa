/**
 * Push delivery cursors on PostgreSQL (ADR 0045, ADR 0056): each outcome of a delivery attempt is one conditional
 * statement keyed by the holder of the claim, so a sender that lost its claim to another replica writes nothing
 * (the statement matches no row and the caller sees `false`).
 */
import { checkPushOutcome, type PushOutcome } from '../push-delivery.js';
import type { Scope } from '../scope.js';
import type { PgQueryable } from './pg-pool-like.js';
import type { PgStatements } from './pg-statements.js';

/** Which delivery a cursor write is about, and who claims to hold it. */
export interface PgPushCursor {
  readonly scope: Scope;
  readonly taskId: string;
  readonly configId: string;
  readonly holder: string;
}

/** Writes one attempt's outcome; false when `holder` no longer holds the claim. */
export async function recordPushDeliveryPg(
  q: PgQueryable,
  sql: PgStatements,
  cursor: PgPushCursor,
  outcome: PushOutcome,
  now: number,
): Promise<boolean> {
  const { scope, taskId, configId, holder } = cursor;
  const error = checkPushOutcome('recordPushDelivery', holder, outcome) ?? null;
  const key = [scope.tenant, scope.owner, taskId, configId, holder];
  let res: { rows: unknown[] };
  switch (outcome.kind) {
    case 'released':
      res = await q.query(sql.pushReleased, key);
      break;
    case 'sending':
      res = await q.query(sql.pushSending, [...key, outcome.seq, now + outcome.claimMs]);
      break;
    case 'delivered':
      res = await q.query(sql.pushDelivered, [...key, outcome.seq, now, now + outcome.claimMs]);
      break;
    case 'failed':
      res = await q.query(sql.pushFailed, [...key, outcome.seq, now, error, outcome.retryAt]);
      break;
    case 'given-up': {
      const through = outcome.through === 'event' ? outcome.seq : null;
      res = await q.query(sql.pushGivenUp, [...key, outcome.seq, now, through, outcome.reason, error]);
      break;
    }
  }
  return res.rows.length > 0;
}
