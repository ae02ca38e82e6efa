/**
 * The SQL text of the SQLite store, with named parameters (`@name`). Kept apart from the store class so the class
 * reads as the contract and the SQL can be reviewed in one place.
 */
import { KEY_COLUMNS, TASK_COLUMNS } from '../sql/sql-rows.js';

const TASK_PK = 'tenant = @tenant AND owner = @owner AND id = @taskId';
const KEY_PK = 'tenant = @tenant AND owner = @owner AND key = @key';

/** Every statement, by purpose. */
export const SQL = {
  selectTask: `SELECT ${TASK_COLUMNS} FROM a2a_tasks WHERE ${TASK_PK}`,
  taskSeq: `SELECT seq FROM a2a_tasks WHERE ${TASK_PK}`,
  taskExists: `SELECT 1 AS one FROM a2a_tasks WHERE ${TASK_PK}`,
  insertTask: `INSERT INTO a2a_tasks (tenant, owner, id, kind, task, reply, fence, seq, status_state, status_ts,
      context_id, terminal, created_at, updated_at)
    VALUES (@tenant, @owner, @taskId, 'task', @task, NULL, 1, 0, @statusState, @statusTs, @contextId, @terminal,
      @now, @now)`,
  updateTask: `UPDATE a2a_tasks SET kind = @kind, task = @task, reply = @reply, fence = @fence, seq = @seq,
      status_state = @statusState, status_ts = @statusTs, context_id = @contextId, terminal = @terminal,
      updated_at = @now
    WHERE ${TASK_PK}`,
  releaseTask: `DELETE FROM a2a_tasks WHERE ${TASK_PK} AND fence = 1 AND seq = 0`,
  insertEvent: `INSERT INTO a2a_events (tenant, owner, task_id, seq, event) VALUES (@tenant, @owner, @taskId, @seq, @event)`,
  readEvents: `SELECT seq, event FROM a2a_events
    WHERE tenant = @tenant AND owner = @owner AND task_id = @taskId AND seq > @afterSeq ORDER BY seq`,

  selectKey: `SELECT ${KEY_COLUMNS} FROM a2a_keys WHERE ${KEY_PK}`,
  insertKey: `INSERT INTO a2a_keys (tenant, owner, key, message_id, digest, task_id, created_at, expires_at, tombstone)
    VALUES (@tenant, @owner, @key, @messageId, @digest, @taskId, @now, @expiresAt, 0)`,
  tombstoneKey: `UPDATE a2a_keys SET tombstone = 1 WHERE ${KEY_PK}`,
  deleteKey: `DELETE FROM a2a_keys WHERE ${KEY_PK}`,
  releaseKey: `DELETE FROM a2a_keys WHERE ${KEY_PK} AND task_id = @taskId AND tombstone = 0`,
  // A refused keyed continuation gives back only the claim it made itself: same task AND same message.
  releaseContinuationKey: `DELETE FROM a2a_keys
    WHERE ${KEY_PK} AND task_id = @taskId AND message_id = @messageId AND tombstone = 0`,
  countTenantKeys: `SELECT count(*) AS n FROM a2a_keys WHERE tenant = @tenant`,

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
  expireKeys: `UPDATE a2a_keys SET tombstone = 1 WHERE rowid IN (
      SELECT k.rowid FROM a2a_keys k WHERE k.tombstone = 0 AND k.expires_at <= @now AND NOT EXISTS (
        SELECT 1 FROM a2a_tasks t WHERE t.tenant = k.tenant AND t.owner = k.owner AND t.id = k.task_id)
      LIMIT @limit)`,
  purgeTombstones: `DELETE FROM a2a_keys WHERE rowid IN (
      SELECT rowid FROM a2a_keys WHERE tombstone = 1 AND expires_at <= @cutoff LIMIT @limit)`,
  anyPurgeable: `SELECT
      EXISTS (SELECT 1 FROM a2a_tasks WHERE terminal = 1 AND updated_at <= @taskCutoff)
      OR EXISTS (SELECT 1 FROM a2a_keys k WHERE k.tombstone = 0 AND k.expires_at <= @now AND NOT EXISTS (
        SELECT 1 FROM a2a_tasks t WHERE t.tenant = k.tenant AND t.owner = k.owner AND t.id = k.task_id))
      OR EXISTS (SELECT 1 FROM a2a_keys WHERE tombstone = 1 AND expires_at <= @tombCutoff) AS any`,
} as const;
