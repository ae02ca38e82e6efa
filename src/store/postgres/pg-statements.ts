/**
 * The SQL text of the PostgreSQL store for one schema, rendered once per store. Parameters are positional
 * (`$1`...); the first two are always the scope's tenant and owner.
 */
import { KEY_COLUMNS, TASK_COLUMNS } from '../sql/sql-rows.js';
import type { PgTables } from './pg-tables.js';

/** Every statement of the store, by purpose. */
export type PgStatements = ReturnType<typeof pgStatements>;

/** Renders the statements for the tables `t`. */
export function pgStatements(t: PgTables) {
  const keyExpired = `k.tombstone = FALSE AND k.expires_at <= $1 AND NOT EXISTS (
    SELECT 1 FROM ${t.tasks} x WHERE x.tenant = k.tenant AND x.owner = k.owner AND x.id = k.task_id)`;
  return {
    selectTask: `SELECT ${TASK_COLUMNS} FROM ${t.tasks} WHERE tenant = $1 AND owner = $2 AND id = $3`,
    taskSeq: `SELECT seq FROM ${t.tasks} WHERE tenant = $1 AND owner = $2 AND id = $3`,
    taskExists: `SELECT 1 AS one FROM ${t.tasks} WHERE tenant = $1 AND owner = $2 AND id = $3`,
    insertTask: `INSERT INTO ${t.tasks} (tenant, owner, id, kind, task, reply, fence, seq, status_state, status_ts,
        context_id, terminal, created_at, updated_at)
      VALUES ($1, $2, $3, 'task', $4, NULL, 1, 0, $5, $6, $7, $8, $9, $9)
      ON CONFLICT DO NOTHING RETURNING id`,
    // The compare-and-set: the row lock makes concurrent writers queue, and each re-checks fence and seq against
    // the row the previous one committed (READ COMMITTED re-evaluates the WHERE on the newest version).
    casTask: `UPDATE ${t.tasks} SET
        kind = CASE WHEN $5::text IS NOT NULL THEN 'message' ELSE kind END,
        task = $4,
        reply = COALESCE($5::text, reply),
        fence = COALESCE($6::int, fence),
        seq = seq + $7::int,
        status_state = $8, status_ts = $9, context_id = $10,
        terminal = ($11::boolean OR $5::text IS NOT NULL OR kind = 'message'),
        updated_at = $12
      WHERE tenant = $1 AND owner = $2 AND id = $3 AND fence = $13 AND ($14::int IS NULL OR seq = $14::int)
      RETURNING ${TASK_COLUMNS}`,
    releaseTask: `DELETE FROM ${t.tasks} WHERE tenant = $1 AND owner = $2 AND id = $3 AND fence = 1 AND seq = 0
      RETURNING id`,
    readEvents: `SELECT seq, event FROM ${t.events}
      WHERE tenant = $1 AND owner = $2 AND task_id = $3 AND seq > $4 ORDER BY seq`,

    selectKey: `SELECT ${KEY_COLUMNS} FROM ${t.keys} WHERE tenant = $1 AND owner = $2 AND key = $3`,
    lockKey: `SELECT ${KEY_COLUMNS} FROM ${t.keys} WHERE tenant = $1 AND owner = $2 AND key = $3 FOR UPDATE`,
    insertKey: `INSERT INTO ${t.keys} (tenant, owner, key, message_id, digest, task_id, created_at, expires_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING RETURNING key`,
    tombstoneKey: `UPDATE ${t.keys} SET tombstone = TRUE WHERE tenant = $1 AND owner = $2 AND key = $3`,
    deleteKey: `DELETE FROM ${t.keys} WHERE tenant = $1 AND owner = $2 AND key = $3`,
    releaseKey: `DELETE FROM ${t.keys}
      WHERE tenant = $1 AND owner = $2 AND key = $3 AND task_id = $4 AND tombstone = FALSE`,
    // A refused keyed continuation gives back only the claim it made itself: same task AND same message.
    releaseContinuationKey: `DELETE FROM ${t.keys}
      WHERE tenant = $1 AND owner = $2 AND key = $3 AND task_id = $4 AND message_id = $5 AND tombstone = FALSE
      RETURNING key`,
    countTenantKeys: `SELECT count(*) AS n FROM ${t.keys} WHERE tenant = $1`,

    putPushConfig: `INSERT INTO ${t.pushConfigs} (tenant, owner, task_id, id, config)
      SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM ${t.tasks} WHERE tenant = $1 AND owner = $2 AND id = $3)
      ON CONFLICT (tenant, owner, task_id, id) DO UPDATE SET config = EXCLUDED.config`,
    getPushConfig: `SELECT config FROM ${t.pushConfigs} WHERE tenant = $1 AND owner = $2 AND task_id = $3 AND id = $4`,
    listPushConfigs: `SELECT config FROM ${t.pushConfigs} WHERE tenant = $1 AND owner = $2 AND task_id = $3
      ORDER BY pos`,
    deletePushConfig: `DELETE FROM ${t.pushConfigs} WHERE tenant = $1 AND owner = $2 AND task_id = $3 AND id = $4
      RETURNING id`,

    // Retention. SKIP LOCKED lets sweeps on several replicas share the work instead of queueing; the outer WHERE
    // repeats the conditions so a row changed while we waited is re-checked on its newest version.
    purgeTasks: `DELETE FROM ${t.tasks} WHERE (tenant, owner, id) IN (
        SELECT tenant, owner, id FROM ${t.tasks} WHERE terminal AND updated_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
        AND terminal AND updated_at <= $1
      RETURNING tenant, owner, id`,
    expireKeys: `UPDATE ${t.keys} k SET tombstone = TRUE WHERE (k.tenant, k.owner, k.key) IN (
        SELECT k.tenant, k.owner, k.key FROM ${t.keys} k WHERE ${keyExpired} LIMIT $2 FOR UPDATE SKIP LOCKED)
        AND ${keyExpired}
      RETURNING k.key`,
    purgeTombstones: `DELETE FROM ${t.keys} WHERE (tenant, owner, key) IN (
        SELECT tenant, owner, key FROM ${t.keys} WHERE tombstone AND expires_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
        AND tombstone AND expires_at <= $1
      RETURNING key`,
    anyPurgeable: `SELECT
        EXISTS (SELECT 1 FROM ${t.tasks} WHERE terminal AND updated_at <= $1)
        OR EXISTS (SELECT 1 FROM ${t.keys} k WHERE ${keyExpired.replaceAll('$1', '$2')})
        OR EXISTS (SELECT 1 FROM ${t.keys} WHERE tombstone AND expires_at <= $3) AS any`,
  };
}
