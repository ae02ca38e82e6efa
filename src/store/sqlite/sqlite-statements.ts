/**
 * The SQL text of the SQLite store, with named parameters (`@name`). Kept apart from the store class so the class
 * reads as the contract and the SQL can be reviewed in one place.
 */
import {
  INTERRUPTED_STATES_SQL,
  KEY_COLUMNS,
  RUNNING_STATES_SQL,
  STEP_COLUMNS,
  TASK_COLUMNS,
} from '../sql/sql-rows.js';

const TASK_PK = 'tenant = @tenant AND owner = @owner AND id = @taskId';
const KEY_PK = 'tenant = @tenant AND owner = @owner AND key = @key';

/** Every statement, by purpose. */
export const SQL = {
  selectTask: `SELECT ${TASK_COLUMNS} FROM a2a_tasks WHERE ${TASK_PK}`,
  taskSeq: `SELECT seq FROM a2a_tasks WHERE ${TASK_PK}`,
  taskExists: `SELECT 1 AS one FROM a2a_tasks WHERE ${TASK_PK}`,
  insertTask: `INSERT INTO a2a_tasks (tenant, owner, id, kind, task, reply, fence, seq, status_state, status_ts,
      context_id, terminal, created_at, updated_at, lease_owner, lease_expires_at)
    VALUES (@tenant, @owner, @taskId, 'task', @task, NULL, 1, 0, @statusState, @statusTs, @contextId, @terminal,
      @now, @now, @leaseOwner, @leaseExpiresAt)`,
  updateTask: `UPDATE a2a_tasks SET kind = @kind, task = @task, reply = @reply, fence = @fence, seq = @seq,
      status_state = @statusState, status_ts = @statusTs, context_id = @contextId, terminal = @terminal,
      updated_at = @now, lease_owner = @leaseOwner, lease_expires_at = @leaseExpiresAt
    WHERE ${TASK_PK}`,
  releaseTask: `DELETE FROM a2a_tasks WHERE ${TASK_PK} AND fence = 1 AND seq = 0`,
  insertEvent: `INSERT INTO a2a_events (tenant, owner, task_id, seq, event) VALUES (@tenant, @owner, @taskId, @seq, @event)`,
  readEvents: `SELECT seq, event FROM a2a_events
    WHERE tenant = @tenant AND owner = @owner AND task_id = @taskId AND seq > @afterSeq ORDER BY seq`,

  selectKey: `SELECT ${KEY_COLUMNS} FROM a2a_keys WHERE ${KEY_PK}`,
  insertKey: `INSERT INTO a2a_keys (tenant, owner, key, message_id, digest, task_id, created_at, expires_at, tombstone)
    VALUES (@tenant, @owner, @key, @messageId, @digest, @taskId, @now, @expiresAt, 0)`,
  tombstoneKey: `UPDATE a2a_keys SET tombstone = 1, tombstoned_at = @now WHERE ${KEY_PK}`,
  deleteKey: `DELETE FROM a2a_keys WHERE ${KEY_PK}`,
  releaseKey: `DELETE FROM a2a_keys WHERE ${KEY_PK} AND task_id = @taskId AND tombstone = 0`,
  // A refused keyed continuation gives back only the claim it made itself: same task AND same message.
  releaseContinuationKey: `DELETE FROM a2a_keys
    WHERE ${KEY_PK} AND task_id = @taskId AND message_id = @messageId AND tombstone = 0`,
  // The cap counts live keys of one scope; tombstones never count (index a2a_keys_scope_live).
  countScopeLiveKeys: `SELECT count(*) AS n FROM a2a_keys WHERE tenant = @tenant AND owner = @owner AND tombstone = 0`,
  // At the cap: the scope's keys past expiry whose task is gone are no longer live; remember them as tombstones.
  expireScopeKeys: `UPDATE a2a_keys SET tombstone = 1, tombstoned_at = @now WHERE rowid IN (
      SELECT k.rowid FROM a2a_keys k
      WHERE k.tenant = @tenant AND k.owner = @owner AND k.tombstone = 0 AND k.expires_at <= @now AND NOT EXISTS (
        SELECT 1 FROM a2a_tasks t WHERE t.tenant = k.tenant AND t.owner = k.owner AND t.id = k.task_id)
      LIMIT @limit)`,

  putPushConfig: `INSERT INTO a2a_push_configs (tenant, owner, task_id, id, config)
    SELECT @tenant, @owner, @taskId, @id, @config WHERE EXISTS (SELECT 1 FROM a2a_tasks WHERE ${TASK_PK})
    ON CONFLICT (tenant, owner, task_id, id) DO UPDATE SET config = excluded.config`,
  getPushConfig: `SELECT config FROM a2a_push_configs
    WHERE tenant = @tenant AND owner = @owner AND task_id = @taskId AND id = @id`,
  // rowid order is insertion order, and an upsert keeps its row: the memory store's Map order.
  listPushConfigs: `SELECT config FROM a2a_push_configs
    WHERE tenant = @tenant AND owner = @owner AND task_id = @taskId ORDER BY rowid`,
  deletePushConfig: `DELETE FROM a2a_push_configs
    WHERE tenant = @tenant AND owner = @owner AND task_id = @taskId AND id = @id`,

  purgeTasks: `DELETE FROM a2a_tasks WHERE rowid IN (
      SELECT rowid FROM a2a_tasks WHERE terminal = 1 AND updated_at <= @cutoff LIMIT @limit)
    RETURNING tenant, owner, id`,
  // Interrupted tasks not written since the cutoff (index a2a_tasks_interrupted); each is ended by a fenced write.
  selectAbandoned: `SELECT tenant, owner, id, ${TASK_COLUMNS} FROM a2a_tasks
    WHERE status_state IN ${INTERRUPTED_STATES_SQL} AND updated_at <= @cutoff AND kind = 'task' LIMIT @limit`,
  expireKeys: `UPDATE a2a_keys SET tombstone = 1, tombstoned_at = @now WHERE rowid IN (
      SELECT k.rowid FROM a2a_keys k WHERE k.tombstone = 0 AND k.expires_at <= @now AND NOT EXISTS (
        SELECT 1 FROM a2a_tasks t WHERE t.tenant = k.tenant AND t.owner = k.owner AND t.id = k.task_id)
      LIMIT @limit)`,
  // A tombstone's age runs from when it became one (ADR 0027).
  purgeTombstones: `DELETE FROM a2a_keys WHERE rowid IN (
      SELECT rowid FROM a2a_keys WHERE tombstone = 1 AND tombstoned_at <= @cutoff LIMIT @limit)`,
  // Tombstones a build older than schema 2 wrote (during a rolling upgrade) start their age now.
  dateUndatedTombstones: `UPDATE a2a_keys SET tombstoned_at = @now WHERE tombstone = 1 AND tombstoned_at IS NULL`,
  anyPurgeable: `SELECT
      EXISTS (SELECT 1 FROM a2a_tasks WHERE terminal = 1 AND updated_at <= @taskCutoff)
      OR (@abandonCutoff IS NOT NULL AND EXISTS (SELECT 1 FROM a2a_tasks
        WHERE status_state IN ${INTERRUPTED_STATES_SQL} AND updated_at <= @abandonCutoff AND kind = 'task'))
      OR EXISTS (SELECT 1 FROM a2a_keys k WHERE k.tombstone = 0 AND k.expires_at <= @now AND NOT EXISTS (
        SELECT 1 FROM a2a_tasks t WHERE t.tenant = k.tenant AND t.owner = k.owner AND t.id = k.task_id))
      OR EXISTS (SELECT 1 FROM a2a_keys WHERE tombstone = 1 AND tombstoned_at <= @tombCutoff) AS any`,

  // Worker leases (ADR 0036). Only the holder renews, and only under the fence it holds: a takeover raised the
  // fence, so the lost worker's renewal matches no row. Renewing is not a write of the task: updated_at stays.
  renewLease: `UPDATE a2a_tasks SET lease_expires_at = @expiresAt
    WHERE ${TASK_PK} AND fence = @fence AND lease_owner = @leaseOwner`,
  // Walks the partial index a2a_tasks_lease in order; its predicate is repeated word for word (see the schema).
  // INDEXED BY: without statistics SQLite would rather take a2a_tasks_interrupted for the state list, then sort
  // every running task; and should the predicate ever drift from the index's, the statement fails to prepare
  // instead of silently scanning.
  findLapsedLeases: `SELECT tenant, owner, id, fence, lease_owner, lease_expires_at FROM a2a_tasks
    INDEXED BY a2a_tasks_lease WHERE lease_expires_at <= @now AND lease_expires_at IS NOT NULL AND kind = 'task'
      AND status_state IN ${RUNNING_STATES_SQL}
    ORDER BY lease_expires_at LIMIT @limit`,

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

  // One atomic conditional upsert: take the role if it is free, lapsed, or already ours (ADR 0028).
  tryLead: `INSERT INTO a2a_leases (role, holder, expires_at) VALUES (@role, @holder, @expiresAt)
    ON CONFLICT (role) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
    WHERE a2a_leases.holder = excluded.holder OR a2a_leases.expires_at <= @now`,
} as const;
