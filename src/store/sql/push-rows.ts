/**
 * Push delivery cursors as both SQL backends read them (schema version 5, ADR 0045): the columns a claim and a
 * state read select, and their mapping to `PushDeliveryState` / `PushDelivery`.
 */
import type { PushDelivery, PushDeliveryState } from '../push-delivery.js';
import { toInt, toPushConfig } from './sql-rows.js';

/** The cursor columns of `a2a_push_configs`. */
export const PUSH_STATE_COLUMNS = `id, task_seq, delivered_seq, attempts, next_attempt_at, failing_since,
  last_error, given_up_events, gave_up_from, gave_up_through, gave_up_at, gave_up_reason`;

/** The columns a claim returns: the cursor, its task and scope, and the config. */
export const PUSH_CLAIM_COLUMNS = `tenant, owner, task_id, config, ${PUSH_STATE_COLUMNS}`;

/** A row carrying `PUSH_STATE_COLUMNS`. */
export interface PushStateRow {
  id: unknown;
  task_seq: unknown;
  delivered_seq: unknown;
  attempts: unknown;
  next_attempt_at: unknown;
  failing_since: unknown;
  last_error: unknown;
  given_up_events: unknown;
  gave_up_from: unknown;
  gave_up_through: unknown;
  gave_up_at: unknown;
  gave_up_reason: unknown;
}

/** A row carrying `PUSH_CLAIM_COLUMNS`. */
export interface PushClaimRow extends PushStateRow {
  tenant: unknown;
  owner: unknown;
  task_id: unknown;
  config: unknown;
}

const absent = (v: unknown): boolean => v === null || v === undefined;

/** Maps the cursor columns. */
export function toPushDeliveryState(r: PushStateRow): PushDeliveryState {
  return {
    configId: String(r.id),
    deliveredSeq: toInt(r.delivered_seq),
    taskSeq: toInt(r.task_seq),
    attempts: toInt(r.attempts),
    nextAttemptAt: toInt(r.next_attempt_at),
    ...(absent(r.failing_since) ? {} : { failingSince: toInt(r.failing_since) }),
    ...(absent(r.last_error) ? {} : { lastError: String(r.last_error) }),
    givenUpEvents: toInt(r.given_up_events),
    ...(absent(r.gave_up_at)
      ? {}
      : {
          lastGiveUp: {
            fromSeq: toInt(r.gave_up_from),
            throughSeq: toInt(r.gave_up_through),
            at: toInt(r.gave_up_at),
            reason: String(r.gave_up_reason),
          },
        }),
  };
}

/** Maps a claimed row. */
export function toPushDelivery(r: PushClaimRow): PushDelivery {
  return {
    ...toPushDeliveryState(r),
    scope: { tenant: String(r.tenant), owner: String(r.owner) },
    taskId: String(r.task_id),
    config: toPushConfig(r.config),
  };
}
