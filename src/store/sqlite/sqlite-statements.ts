/**
 * The SQL text of the SQLite store, with named parameters (`@name`). Kept apart from the store class so the class
 * reads as the contract and the SQL can be reviewed in one place.
 */
import { PUSH_CLAIM_COLUMNS, PUSH_STATE_COLUMNS } from '../sql/push-rows.js';
import {
  INTERRUPTED_STATES_SQL,
  KEY_COLUMNS,
  RUNNING_STATES_SQL,
  STEP_COLUMNS,
  TASK_COLUMNS,
} from '../sql/sql-rows.js';

const TASK_PK = 'tenant = @tenant AND owner = @owner AND id = @taskId';
const KEY_PK = 'tenant = @tenant AND owner = @owner AND key = @key';
const KEY_INSERT = `INSERT INTO a2a_keys (tenant, owner, key, message_id, digest, task_id, created_at, expires_at,
    tombstone) VALUES (@tenant, @owner, @key, @messageId, @digest, @taskId, @now, @expiresAt, 0)`;
const PUSH_PK = 'tenant = @tenant AND owner = @owner AND task_id = @taskId AND id = @configId';
/** Webhooks with work, due, held by nobody (or a lapsed holder). Its first term is a2a_push_due's predicate. */
const PUSH_CLAIMABLE = `task_seq > delivered_seq AND next_attempt_at <= @now
  AND (claim_until IS NULL OR claim_until <= @now)`;
/**
 * An outcome of an event counts only from the claim's holder, for the event after the cursor. A released claim
 * keeps its holder's name with no claim_until, so a repeat of its releasing outcome is recognised (ADR 0056).
 */
const PUSH_HELD = `${PUSH_PK} AND claim_holder = @holder AND claim_until IS NOT NULL`;
const PUSH_NEXT = `${PUSH_HELD} AND delivered_seq = @seq - 1`;
const PUSH_RELEASED_BY = `${PUSH_PK} AND claim_holder = @holder AND claim_until IS NULL`;

/** Every statement, by purpose. */
export const SQL = {
  selectTask: `SELECT ${TASK_COLUMNS} FROM a2a_tasks WHERE ${TASK_PK}`,
  selectCommitHead: `SELECT kind, reply, fence, seq, created_at, lease_owner, lease_expires_at, terminal, write_id
    FROM a2a_tasks WHERE ${TASK_PK}`,
  taskSeq: `SELECT seq FROM a2a_tasks WHERE ${TASK_PK}`,
  taskExists: `SELECT 1 AS one FROM a2a_tasks WHERE ${TASK_PK}`,
  insertTask: `INSERT INTO a2a_tasks (tenant, owner, id, kind, task, reply, fence, seq, status_state, status_ts,
      context_id, terminal, created_at, updated_at, lease_owner, lease_expires_at)
    VALUES (@tenant, @owner, @taskId, 'task', @task, NULL, 1, 0, @statusState, @statusTs, @contextId, @terminal,
      @now, @now, @leaseOwner, @leaseExpiresAt)`,
  updateTask: `UPDATE a2a_tasks SET kind = @kind, task = @task, reply = @reply, fence = @fence, seq = @seq,
      status_state = @statusState, status_ts = @statusTs, context_id = @contextId, terminal = @terminal,
      updated_at = @now, lease_owner = @leaseOwner, lease_expires_at = @leaseExpiresAt, write_id = @writeId
    WHERE ${TASK_PK}`,
  releaseTask: `DELETE FROM a2a_tasks WHERE ${TASK_PK} AND fence = 1 AND seq = 0`,
  insertEvent: `INSERT INTO a2a_events (tenant, owner, task_id, seq, event) VALUES (@tenant, @owner, @taskId, @seq, @event)`,
  readEvents: `SELECT seq, event FROM a2a_events
    WHERE tenant = @tenant AND owner = @owner AND task_id = @taskId AND seq > @afterSeq ORDER BY seq`,

  selectKey: `SELECT ${KEY_COLUMNS} FROM a2a_keys WHERE ${KEY_PK}`,
  insertKey: KEY_INSERT,
  // The claim without a cap: one statement, and `changes` says whether the key was new.
  insertKeyIfAbsent: `${KEY_INSERT} ON CONFLICT (tenant, owner, key) DO NOTHING`,
  tombstoneKey: `UPDATE a2a_keys SET tombstone = 1, tombstoned_at = @now WHERE ${KEY_PK}`,
  deleteKey: `DELETE FROM a2a_keys WHERE ${KEY_PK}`,
  releaseKey: `DELETE FROM a2a_keys WHERE ${KEY_PK} AND task_id = @taskId AND tombstone = 0`,
  // A refused keyed continuation gives back only the claim it made itself: same task AND same message.
  releaseContinuationKey: `DELETE FROM a2a_keys
    WHERE ${KEY_PK} AND task_id = @taskId AND message_id = @messageId AND tombstone = 0`,
  // The cap counts live keys of one scope; tombstones never count (index a2a_keys_scope_live).
  countScopeLiveKeys: `SELECT count(*) AS n FROM a2a_keys WHERE tenant = @tenant AND owner = @owner AND tombstone = 0`,
  // The live-keys gauge: every scope's live keys, now and then (not per send).
  countLiveKeys: `SELECT count(*) AS n FROM a2a_keys WHERE tombstone = 0`,
  // At the cap: the scope's keys past expiry whose task is gone are no longer live; remember them as tombstones.
  expireScopeKeys: `UPDATE a2a_keys SET tombstone = 1, tombstoned_at = @now WHERE rowid IN (
      SELECT k.rowid FROM a2a_keys k
      WHERE k.tenant = @tenant AND k.owner = @owner AND k.tombstone = 0 AND k.expires_at <= @now AND NOT EXISTS (
        SELECT 1 FROM a2a_tasks t WHERE t.tenant = k.tenant AND t.owner = k.owner AND t.id = k.task_id)
      LIMIT @limit)`,

  // A new config's cursor starts before the task's first event (delivered_seq 0) and knows the task's seq, or at
  // its last event when the task is terminal (ADR 0058); a replaced one keeps its cursor (ADR 0045).
  putPushConfig: `INSERT INTO a2a_push_configs (tenant, owner, task_id, id, config, task_seq, delivered_seq)
    SELECT @tenant, @owner, @taskId, @id, @config, seq, CASE WHEN terminal = 1 THEN seq ELSE 0 END
    FROM a2a_tasks WHERE ${TASK_PK}
    ON CONFLICT (tenant, owner, task_id, id) DO UPDATE SET config = excluded.config`,
  getPushConfig: `SELECT config FROM a2a_push_configs
    WHERE tenant = @tenant AND owner = @owner AND task_id = @taskId AND id = @id`,
  // rowid order is insertion order, and an upsert keeps its row: the memory store's Map order.
  listPushConfigs: `SELECT config FROM a2a_push_configs
    WHERE tenant = @tenant AND owner = @owner AND task_id = @taskId ORDER BY rowid`,
  deletePushConfig: `DELETE FROM a2a_push_configs
    WHERE tenant = @tenant AND owner = @owner AND task_id = @taskId AND id = @id`,

  // The sweeps name their partial index (schema version 6): should a predicate ever drift from the index's, the
  // statement fails to prepare instead of silently scanning the table.
  purgeTasks: `DELETE FROM a2a_tasks WHERE rowid IN (
      SELECT rowid FROM a2a_tasks INDEXED BY a2a_tasks_retention
      WHERE terminal = 1 AND updated_at <= @cutoff LIMIT @limit)
    RETURNING tenant, owner, id`,
  // Interrupted tasks not written since the cutoff (index a2a_tasks_interrupted); each is ended by a fenced write.
  selectAbandoned: `SELECT tenant, owner, id, ${TASK_COLUMNS} FROM a2a_tasks INDEXED BY a2a_tasks_interrupted
    WHERE status_state IN ${INTERRUPTED_STATES_SQL} AND updated_at <= @cutoff AND kind = 'task' LIMIT @limit`,
  expireKeys: `UPDATE a2a_keys SET tombstone = 1, tombstoned_at = @now WHERE rowid IN (
      SELECT k.rowid FROM a2a_keys k WHERE k.tombstone = 0 AND k.expires_at <= @now AND NOT EXISTS (
        SELECT 1 FROM a2a_tasks t WHERE t.tenant = k.tenant AND t.owner = k.owner AND t.id = k.task_id)
      LIMIT @limit)`,
  // A tombstone's age runs from when it became one (ADR 0027).
  purgeTombstones: `DELETE FROM a2a_keys WHERE rowid IN (
      SELECT rowid FROM a2a_keys INDEXED BY a2a_keys_tombstone_age
      WHERE tombstone = 1 AND tombstoned_at <= @cutoff LIMIT @limit)`,
  // Tombstones a build older than schema 2 wrote (during a rolling upgrade) start their age now.
  dateUndatedTombstones: `UPDATE a2a_keys SET tombstoned_at = @now WHERE tombstone = 1 AND tombstoned_at IS NULL`,
  anyPurgeable: `SELECT
      EXISTS (SELECT 1 FROM a2a_tasks INDEXED BY a2a_tasks_retention
        WHERE terminal = 1 AND updated_at <= @taskCutoff)
      OR (@abandonCutoff IS NOT NULL AND EXISTS (SELECT 1 FROM a2a_tasks INDEXED BY a2a_tasks_interrupted
        WHERE status_state IN ${INTERRUPTED_STATES_SQL} AND updated_at <= @abandonCutoff AND kind = 'task'))
      OR EXISTS (SELECT 1 FROM a2a_keys k WHERE k.tombstone = 0 AND k.expires_at <= @now AND NOT EXISTS (
        SELECT 1 FROM a2a_tasks t WHERE t.tenant = k.tenant AND t.owner = k.owner AND t.id = k.task_id))
      OR EXISTS (SELECT 1 FROM a2a_keys INDEXED BY a2a_keys_tombstone_age
        WHERE tombstone = 1 AND tombstoned_at <= @tombCutoff) AS any`,

  // Worker leases (ADR 0036). Only the holder renews, and only under the fence it holds: a takeover raised the
  // fence, so the lost worker's renewal matches no row. Renewing is not a write of the task: updated_at stays.
  renewLease: `UPDATE a2a_tasks SET lease_expires_at = @expiresAt
    WHERE ${TASK_PK} AND fence = @fence AND lease_owner = @leaseOwner`,
  // Walks the partial index a2a_tasks_lease in order; its predicate is repeated word for word (see the schema).
  // INDEXED BY: without statistics SQLite would rather take a2a_tasks_interrupted for the state list, then sort
  // every running task; and should the predicate ever drift from the index's, the statement fails to prepare
  // instead of silently scanning.
  findLapsedLeases: `SELECT tenant, owner, id, ${TASK_COLUMNS} FROM a2a_tasks
    INDEXED BY a2a_tasks_lease WHERE lease_expires_at <= @now AND lease_expires_at IS NOT NULL AND kind = 'task'
      AND status_state IN ${RUNNING_STATES_SQL}
    ORDER BY lease_expires_at LIMIT @limit`,

  // Start-up's census of leases still held (by a sibling, or a stopped predecessor): the lease index again.
  leaseCensus: `SELECT COUNT(*) AS held, MIN(lease_expires_at) AS first_expires_at FROM a2a_tasks
    WHERE lease_expires_at > @now AND lease_expires_at IS NOT NULL AND kind = 'task'
      AND status_state IN ${RUNNING_STATES_SQL}`,

  // Delegation lease renewals (ADR 0044): on the task's row, not a write of the task (updated_at stays).
  recordParentRenewal: `UPDATE a2a_tasks SET parent_renewed_at = @now
    WHERE ${TASK_PK} AND kind = 'task' AND terminal = 0`,
  lastParentRenewal: `SELECT parent_renewed_at FROM a2a_tasks WHERE ${TASK_PK}`,

  // Durable steps (ADR 0036): the fence check and the insert run in one IMMEDIATE transaction.
  selectStep: `SELECT ${STEP_COLUMNS} FROM a2a_steps
    WHERE tenant = @tenant AND owner = @owner AND task_id = @taskId AND name = @name`,
  taskFence: `SELECT fence FROM a2a_tasks WHERE ${TASK_PK}`,
  insertStep: `INSERT INTO a2a_steps (tenant, owner, task_id, name, result, fence, recorded_at)
    VALUES (@tenant, @owner, @taskId, @name, @result, @fence, @now)`,

  // Push delivery (ADR 0045). The commit that appends events marks the task's cursors in its transaction.
  markPushTaskSeq: `UPDATE a2a_push_configs SET task_seq = @seq
    WHERE tenant = @tenant AND owner = @owner AND task_id = @taskId`,
  anyClaimablePush: `SELECT 1 AS one FROM a2a_push_configs INDEXED BY a2a_push_due WHERE ${PUSH_CLAIMABLE} LIMIT 1`,
  claimablePush: `SELECT ${PUSH_CLAIM_COLUMNS} FROM a2a_push_configs INDEXED BY a2a_push_due
    WHERE ${PUSH_CLAIMABLE} ORDER BY next_attempt_at LIMIT @limit`,
  claimPush: `UPDATE a2a_push_configs SET claim_holder = @holder, claim_until = @until WHERE ${PUSH_PK}`,
  pushSending: `UPDATE a2a_push_configs SET claim_until = @until WHERE ${PUSH_NEXT}`,
  // The cursor already at @seq under the same claim is a repeat of this acknowledgement: it changes nothing new.
  pushDelivered: `UPDATE a2a_push_configs SET delivered_seq = @seq, attempts = 0, failing_since = NULL,
      next_attempt_at = @now, claim_until = @until
    WHERE ${PUSH_HELD} AND delivered_seq BETWEEN @seq - 1 AND @seq`,
  pushFailed: `UPDATE a2a_push_configs SET attempts = attempts + 1, failing_since = COALESCE(failing_since, @now),
      last_error = @error, next_attempt_at = @retryAt, claim_until = NULL
    WHERE ${PUSH_NEXT}`,
  pushFailedLanded: `SELECT 1 AS one FROM a2a_push_configs WHERE ${PUSH_RELEASED_BY}
    AND delivered_seq = @seq - 1 AND attempts > 0 AND next_attempt_at = @retryAt`,
  // Given up through @through, or (NULL) through every event committed so far.
  pushGivenUp: `UPDATE a2a_push_configs SET
      given_up_events = given_up_events + MAX(@seq, COALESCE(@through, task_seq)) - delivered_seq,
      gave_up_from = @seq, gave_up_through = MAX(@seq, COALESCE(@through, task_seq)), gave_up_at = @now,
      gave_up_reason = @reason, delivered_seq = MAX(@seq, COALESCE(@through, task_seq)), attempts = 0,
      failing_since = NULL, last_error = @error, next_attempt_at = @now, claim_until = NULL
    WHERE ${PUSH_NEXT}`,
  pushGivenUpLanded: `SELECT 1 AS one FROM a2a_push_configs WHERE ${PUSH_RELEASED_BY}
    AND gave_up_from = @seq AND delivered_seq >= @seq`,
  pushReleased: `UPDATE a2a_push_configs SET claim_until = NULL WHERE ${PUSH_HELD}`,
  pushReleasedLanded: `SELECT 1 AS one FROM a2a_push_configs WHERE ${PUSH_RELEASED_BY}`,
  pushState: `SELECT ${PUSH_STATE_COLUMNS} FROM a2a_push_configs WHERE ${PUSH_PK}`,

  // One atomic conditional upsert: take the role if it is free, lapsed, or already ours (ADR 0028).
  tryLead: `INSERT INTO a2a_leases (role, holder, expires_at) VALUES (@role, @holder, @expiresAt)
    ON CONFLICT (role) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
    WHERE a2a_leases.holder = excluded.holder OR a2a_leases.expires_at <= @now`,
} as const;
