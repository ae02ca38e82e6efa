/**
 * The SQL text of the PostgreSQL store for one schema, rendered once per store. Parameters are positional
 * (`$1`...); the first two are always the scope's tenant and owner.
 */
import { PUSH_CLAIM_COLUMNS, PUSH_STATE_COLUMNS } from '../sql/push-rows.js';
import {
  INTERRUPTED_STATES_SQL,
  KEY_COLUMNS,
  RUNNING_STATES_SQL,
  STEP_COLUMNS,
  TASK_COLUMNS,
} from '../sql/sql-rows.js';

/**
 * A commit's RETURNING: the row without its task JSON, which the writer already holds (it wrote it), so it is
 * neither sent back nor parsed on every commit.
 */
const TASK_HEAD_COLUMNS = 'kind, reply, fence, seq, created_at, updated_at, lease_owner, lease_expires_at';
import type { PgTables } from './pg-tables.js';

/** Every statement of the store, by purpose. */
export type PgStatements = ReturnType<typeof pgStatements>;

/** Renders the statements for the tables `t`. */
export function pgStatements(t: PgTables) {
  // A key past its expiry whose task is gone (`now` is the parameter holding the store's time).
  const keyExpired = (now: string) => `k.tombstone = FALSE AND k.expires_at <= ${now} AND NOT EXISTS (
    SELECT 1 FROM ${t.tasks} x WHERE x.tenant = k.tenant AND x.owner = k.owner AND x.id = k.task_id)`;
  // An outcome counts only from the claim's holder ($5), for the event ($6) after the cursor. A released claim
  // keeps its holder's name with no claim_until, so a repeat of its releasing outcome is recognised (ADR 0056).
  const PUSH_PK = 'tenant = $1 AND owner = $2 AND task_id = $3 AND id = $4';
  const PUSH_HELD = `${PUSH_PK} AND claim_holder = $5 AND claim_until IS NOT NULL`;
  const PUSH_NEXT = `${PUSH_HELD} AND delivered_seq = $6::int - 1`;
  const PUSH_RELEASED_BY = `${PUSH_PK} AND claim_holder = $5 AND claim_until IS NULL`;
  // The update's answer, or the row showing it landed before (the outer SELECT reads the row as it was before
  // this statement, so an update that applies never counts twice).
  const orLanded = (update: string, landed: string) =>
    `WITH upd AS (${update} RETURNING id) SELECT id FROM upd
      UNION ALL SELECT id FROM ${t.pushConfigs} WHERE ${PUSH_RELEASED_BY} AND ${landed}`;
  const abandoned = (cutoff: string) =>
    `status_state IN ${INTERRUPTED_STATES_SQL} AND updated_at <= ${cutoff} AND kind = 'task'`;
  return {
    selectTask: `SELECT ${TASK_COLUMNS} FROM ${t.tasks} WHERE tenant = $1 AND owner = $2 AND id = $3`,
    // A refused commit's view: the task and the id of its last applied write (ADR 0052).
    selectTaskWriteId: `SELECT ${TASK_COLUMNS}, write_id FROM ${t.tasks}
      WHERE tenant = $1 AND owner = $2 AND id = $3`,
    taskSeq: `SELECT seq FROM ${t.tasks} WHERE tenant = $1 AND owner = $2 AND id = $3`,
    taskExists: `SELECT 1 AS one FROM ${t.tasks} WHERE tenant = $1 AND owner = $2 AND id = $3`,
    insertTask: `INSERT INTO ${t.tasks} (tenant, owner, id, kind, task, reply, fence, seq, status_state, status_ts,
        context_id, terminal, created_at, updated_at, lease_owner, lease_expires_at)
      VALUES ($1, $2, $3, 'task', $4, NULL, 1, 0, $5, $6, $7, $8, $9, $9, $10, $11)
      ON CONFLICT DO NOTHING RETURNING id`,
    // A keyed send's claim and its new task in one statement (ADR 0048): one round trip, its own transaction.
    // The key ($12..$15) goes in only if nobody holds it (any row, live or tombstone, counts: the caller then
    // takes the full path, which tells held from expired); the task goes in only with the key. A task id that
    // exists fails the whole statement (unique violation), so no key is left without its task.
    claimAndCreate: `WITH k AS (
        INSERT INTO ${t.keys} (tenant, owner, key, message_id, digest, task_id, created_at, expires_at)
        VALUES ($1, $2, $12, $13, $14, $3, $9, $15) ON CONFLICT DO NOTHING RETURNING key
      ), ins AS (
        INSERT INTO ${t.tasks} (tenant, owner, id, kind, task, reply, fence, seq, status_state, status_ts,
          context_id, terminal, created_at, updated_at, lease_owner, lease_expires_at)
        SELECT $1, $2, $3, 'task', $4, NULL, 1, 0, $5, $6, $7, $8, $9, $9, $10, $11 WHERE EXISTS (SELECT 1 FROM k)
        RETURNING id
      )
      SELECT (SELECT count(*) FROM ins)::int AS created`,
    // Many keyed sends' claims and tasks in one statement (group commit, ADR 0049): the columns of
    // `claimAndCreate`, each an array with an element per send. A key goes in only if nobody holds it, and a task
    // only with its own key (the join on the key's task id: of two sends of one key in the batch, one wins).
    // Keys go in in one order everywhere, so two batches racing for the same keys queue instead of deadlocking.
    // A task id that exists fails the whole statement, and the caller runs each send alone.
    // The single statements (`claimAndCreate`, `commitTask`) stay beside the batch ones on purpose, not as one
    // item in arrays: with scalar parameters their plans find the task by its primary key whatever the table's
    // statistics (test/store/sql-indexes.test.ts), while a join with `unnest` is planned as a scan of the tasks
    // until the first ANALYZE; a lone send, and every send of a quiet server, takes the single statement.
    claimAndCreateMany: `WITH i AS (
        SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
          $8::boolean[], $9::bigint[], $10::text[], $11::bigint[], $12::text[], $13::text[], $14::text[],
          $15::bigint[])
        AS i(tenant, owner, id, task, status_state, status_ts, context_id, terminal, now, lease_owner,
          lease_expires_at, key, message_id, digest, expires_at)
      ), k AS (
        INSERT INTO ${t.keys} (tenant, owner, key, message_id, digest, task_id, created_at, expires_at)
        SELECT tenant, owner, key, message_id, digest, id, now, expires_at FROM i ORDER BY tenant, owner, key
        ON CONFLICT DO NOTHING RETURNING tenant, owner, key, task_id
      ), ins AS (
        INSERT INTO ${t.tasks} (tenant, owner, id, kind, task, reply, fence, seq, status_state, status_ts,
          context_id, terminal, created_at, updated_at, lease_owner, lease_expires_at)
        SELECT i.tenant, i.owner, i.id, 'task', i.task, NULL, 1, 0, i.status_state, i.status_ts, i.context_id,
          i.terminal, i.now, i.now, i.lease_owner, i.lease_expires_at
        FROM i JOIN k ON k.tenant = i.tenant AND k.owner = i.owner AND k.key = i.key AND k.task_id = i.id
        RETURNING tenant, owner, id
      )
      SELECT tenant, owner, id FROM ins`,
    // The whole commit in one statement (ADR 0047). The compare-and-set: the row lock makes concurrent writers
    // queue, and each re-checks fence and seq against the row the previous one committed (READ COMMITTED
    // re-evaluates the WHERE on the newest version); a finished task takes no write, and a write whose id ($18)
    // is the task's last applied one landed already (ADR 0052). $15 says whether the write sets the lease ($16,
    // $17: both NULL to clear it) or leaves it as it is. Then the events it appends ($19, numbered from the new
    // seq: $7 of them, in order) and the outbox mark of the task's webhooks (ADR 0045). One statement is one transaction and
    // one round trip; when the compare-and-set matches nothing, nothing else is written either.
    commitTask: `WITH upd AS (
      UPDATE ${t.tasks} SET
        kind = CASE WHEN $5::text IS NOT NULL THEN 'message' ELSE kind END,
        task = $4,
        reply = COALESCE($5::text, reply),
        fence = COALESCE($6::int, fence),
        seq = seq + $7::int,
        status_state = $8, status_ts = $9, context_id = $10,
        terminal = ($11::boolean OR $5::text IS NOT NULL OR kind = 'message'),
        updated_at = $12,
        lease_owner = CASE WHEN $15::boolean THEN $16::text ELSE lease_owner END,
        lease_expires_at = CASE WHEN $15::boolean THEN $17::bigint ELSE lease_expires_at END,
        write_id = $18::text
      WHERE tenant = $1 AND owner = $2 AND id = $3 AND fence = $13 AND ($14::int IS NULL OR seq = $14::int)
        AND NOT terminal AND ($18::text IS NULL OR write_id IS DISTINCT FROM $18::text)
      RETURNING ${TASK_HEAD_COLUMNS}
    ), ev AS (
      INSERT INTO ${t.events} (tenant, owner, task_id, seq, event)
      SELECT $1, $2, $3, upd.seq - $7::int + e.ord::int, e.event
      FROM upd, unnest($19::text[]) WITH ORDINALITY AS e(event, ord)
    ), mark AS (
      UPDATE ${t.pushConfigs} p SET task_seq = upd.seq FROM upd
      WHERE $7::int > 0 AND p.tenant = $1 AND p.owner = $2 AND p.task_id = $3
    )
    SELECT * FROM upd`,
    // Many commits in one statement (group commit, ADR 0049): `commitTask`'s parameters $1..$18, each an array
    // with an element per commit (never two of one task), and the events of all of them flattened into $19..$21
    // (which commit, by its 1-based place in the arrays; the event's place in that commit; the event). Each
    // commit's compare-and-set is checked on its own row as in `commitTask`; a commit whose row did not match
    // returns no row and wrote nothing, and the caller runs it alone to learn why.
    commitTaskMany: `WITH w AS (
      SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::int[],
        $8::text[], $9::text[], $10::text[], $11::boolean[], $12::bigint[], $13::int[], $14::int[], $15::boolean[],
        $16::text[], $17::bigint[], $18::text[]) WITH ORDINALITY
      AS w(tenant, owner, id, task, reply, next_fence, n, status_state, status_ts, context_id, terminal, now,
        expect_fence, expect_seq, set_lease, lease_owner, lease_expires_at, write_id, ord)
    ), upd AS (
      UPDATE ${t.tasks} t SET
        kind = CASE WHEN w.reply IS NOT NULL THEN 'message' ELSE t.kind END,
        task = w.task,
        reply = COALESCE(w.reply, t.reply),
        fence = COALESCE(w.next_fence, t.fence),
        seq = t.seq + w.n,
        status_state = w.status_state, status_ts = w.status_ts, context_id = w.context_id,
        terminal = (w.terminal OR w.reply IS NOT NULL OR t.kind = 'message'),
        updated_at = w.now,
        lease_owner = CASE WHEN w.set_lease THEN w.lease_owner ELSE t.lease_owner END,
        lease_expires_at = CASE WHEN w.set_lease THEN w.lease_expires_at ELSE t.lease_expires_at END,
        write_id = w.write_id
      FROM w
      WHERE t.tenant = w.tenant AND t.owner = w.owner AND t.id = w.id AND t.fence = w.expect_fence
        AND (w.expect_seq IS NULL OR t.seq = w.expect_seq)
        AND NOT t.terminal AND (w.write_id IS NULL OR t.write_id IS DISTINCT FROM w.write_id)
      RETURNING w.ord, w.n, t.tenant, t.owner, t.id, ${TASK_HEAD_COLUMNS.split(', ')
        .map((c) => `t.${c}`)
        .join(', ')}
    ), ev AS (
      INSERT INTO ${t.events} (tenant, owner, task_id, seq, event)
      SELECT upd.tenant, upd.owner, upd.id, upd.seq - upd.n + e.pos, e.event
      FROM upd JOIN unnest($19::int[], $20::int[], $21::text[]) AS e(ord, pos, event) ON e.ord = upd.ord
    ), mark AS (
      UPDATE ${t.pushConfigs} p SET task_seq = upd.seq FROM upd
      WHERE upd.n > 0 AND p.tenant = upd.tenant AND p.owner = upd.owner AND p.task_id = upd.id
    )
    SELECT * FROM upd`,
    releaseTask: `DELETE FROM ${t.tasks} WHERE tenant = $1 AND owner = $2 AND id = $3 AND fence = 1 AND seq = 0
      RETURNING id`,
    readEvents: `SELECT seq, event FROM ${t.events}
      WHERE tenant = $1 AND owner = $2 AND task_id = $3 AND seq > $4 ORDER BY seq`,

    selectKey: `SELECT ${KEY_COLUMNS} FROM ${t.keys} WHERE tenant = $1 AND owner = $2 AND key = $3`,
    lockKey: `SELECT ${KEY_COLUMNS} FROM ${t.keys} WHERE tenant = $1 AND owner = $2 AND key = $3 FOR UPDATE`,
    insertKey: `INSERT INTO ${t.keys} (tenant, owner, key, message_id, digest, task_id, created_at, expires_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING RETURNING key`,
    tombstoneKey: `UPDATE ${t.keys} SET tombstone = TRUE, tombstoned_at = $4
      WHERE tenant = $1 AND owner = $2 AND key = $3`,
    deleteKey: `DELETE FROM ${t.keys} WHERE tenant = $1 AND owner = $2 AND key = $3`,
    releaseKey: `DELETE FROM ${t.keys}
      WHERE tenant = $1 AND owner = $2 AND key = $3 AND task_id = $4 AND tombstone = FALSE`,
    // A refused keyed continuation gives back only the claim it made itself: same task AND same message.
    releaseContinuationKey: `DELETE FROM ${t.keys}
      WHERE tenant = $1 AND owner = $2 AND key = $3 AND task_id = $4 AND message_id = $5 AND tombstone = FALSE
      RETURNING key`,
    // The cap counts live keys of one scope; tombstones never count (index a2a_keys_scope_live).
    countScopeLiveKeys: `SELECT count(*) AS n FROM ${t.keys} WHERE tenant = $1 AND owner = $2 AND tombstone = FALSE`,
    // The live-keys gauge: every scope's live keys, now and then (not per send).
    countLiveKeys: `SELECT count(*) AS n FROM ${t.keys} WHERE tombstone = FALSE`,
    // At the cap: the scope's keys past expiry whose task is gone are no longer live; remember them as tombstones.
    expireScopeKeys: `UPDATE ${t.keys} k SET tombstone = TRUE, tombstoned_at = $3 WHERE (k.tenant, k.owner, k.key) IN (
        SELECT k.tenant, k.owner, k.key FROM ${t.keys} k
        WHERE k.tenant = $1 AND k.owner = $2 AND ${keyExpired('$3')} LIMIT $4 FOR UPDATE SKIP LOCKED)
        AND ${keyExpired('$3')}
      RETURNING k.key`,

    // A new config's cursor starts before the task's first event (delivered_seq 0) and knows the task's seq, or at
    // its last event when the task is terminal (ADR 0058); a replaced one keeps its cursor (ADR 0045).
    putPushConfig: `INSERT INTO ${t.pushConfigs} (tenant, owner, task_id, id, config, task_seq, delivered_seq)
      SELECT $1, $2, $3, $4, $5, seq, CASE WHEN terminal THEN seq ELSE 0 END FROM ${t.tasks}
      WHERE tenant = $1 AND owner = $2 AND id = $3
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
    // Interrupted tasks not written since the cutoff (index a2a_tasks_interrupted), locked so a continuation
    // waits for the fenced write that ends each one (or was first, and the row no longer qualifies).
    selectAbandoned: `SELECT tenant, owner, id, ${TASK_COLUMNS} FROM ${t.tasks} WHERE ${abandoned('$1')}
      LIMIT $2 FOR UPDATE SKIP LOCKED`,
    expireKeys: `UPDATE ${t.keys} k SET tombstone = TRUE, tombstoned_at = $1 WHERE (k.tenant, k.owner, k.key) IN (
        SELECT k.tenant, k.owner, k.key FROM ${t.keys} k WHERE ${keyExpired('$1')} LIMIT $2 FOR UPDATE SKIP LOCKED)
        AND ${keyExpired('$1')}
      RETURNING k.key`,
    // A tombstone's age runs from when it became one (ADR 0027).
    purgeTombstones: `DELETE FROM ${t.keys} WHERE (tenant, owner, key) IN (
        SELECT tenant, owner, key FROM ${t.keys} WHERE tombstone AND tombstoned_at <= $1
        LIMIT $2 FOR UPDATE SKIP LOCKED)
        AND tombstone AND tombstoned_at <= $1
      RETURNING key`,
    // Tombstones a build older than schema 2 wrote (during a rolling upgrade) start their age now.
    dateUndatedTombstones: `UPDATE ${t.keys} SET tombstoned_at = $1 WHERE tombstone AND tombstoned_at IS NULL`,
    anyPurgeable: `SELECT
        EXISTS (SELECT 1 FROM ${t.tasks} WHERE terminal AND updated_at <= $1)
        OR ($4::bigint IS NOT NULL AND EXISTS (SELECT 1 FROM ${t.tasks} WHERE ${abandoned('$4::bigint')}))
        OR EXISTS (SELECT 1 FROM ${t.keys} k WHERE ${keyExpired('$2')})
        OR EXISTS (SELECT 1 FROM ${t.keys} WHERE tombstone AND tombstoned_at <= $3) AS any`,

    // Worker leases (ADR 0036). Only the holder renews, and only under the fence it holds: a takeover raised the
    // fence under the row lock, so the lost worker's renewal, queued behind it, re-checks and matches nothing.
    // Renewing is not a write of the task: updated_at stays.
    renewLease: `UPDATE ${t.tasks} SET lease_expires_at = $6
      WHERE tenant = $1 AND owner = $2 AND id = $3 AND fence = $4 AND lease_owner = $5
      RETURNING id`,
    // Reads the partial index a2a_tasks_lease in order; its predicate is repeated here (see the schema).
    findLapsedLeases: `SELECT tenant, owner, id, ${TASK_COLUMNS} FROM ${t.tasks}
      WHERE lease_expires_at <= $1 AND lease_expires_at IS NOT NULL AND kind = 'task'
        AND status_state IN ${RUNNING_STATES_SQL}
      ORDER BY lease_expires_at LIMIT $2`,

    // Start-up's census of leases still held (by a sibling, or a stopped predecessor).
    leaseCensus: `SELECT COUNT(*) AS held, MIN(lease_expires_at) AS first_expires_at FROM ${t.tasks}
      WHERE lease_expires_at > $1 AND lease_expires_at IS NOT NULL AND kind = 'task'
        AND status_state IN ${RUNNING_STATES_SQL}`,

    // Delegation lease renewals (ADR 0044): on the task's row, not a write of the task (updated_at stays).
    recordParentRenewal: `UPDATE ${t.tasks} SET parent_renewed_at = $4
      WHERE tenant = $1 AND owner = $2 AND id = $3 AND kind = 'task' AND NOT terminal
      RETURNING id`,
    lastParentRenewal: `SELECT parent_renewed_at FROM ${t.tasks} WHERE tenant = $1 AND owner = $2 AND id = $3`,

    // Durable steps (ADR 0036), one statement: the fence check takes the task's row FOR SHARE, so a takeover
    // (an UPDATE of that row) either committed first, and the re-checked fence no longer matches, or waits until
    // the step is in. ON CONFLICT: of racing inserts of one name one inserts, the others wait for it and insert
    // nothing; the caller then reads the winner's committed row.
    recordStep: `WITH live AS (
        SELECT 1 FROM ${t.tasks} WHERE tenant = $1 AND owner = $2 AND id = $3 AND fence = $4::int FOR SHARE)
      INSERT INTO ${t.steps} (tenant, owner, task_id, name, result, fence, recorded_at)
      SELECT $1, $2, $3, $5, $6, $4::int, $7::bigint FROM live
      ON CONFLICT DO NOTHING RETURNING name`,
    selectStep: `SELECT ${STEP_COLUMNS} FROM ${t.steps}
      WHERE tenant = $1 AND owner = $2 AND task_id = $3 AND name = $4`,

    // Push delivery (ADR 0045). The commit that appends events marks the task's cursors in its statement.
    // SKIP LOCKED: replicas claiming at once share the due webhooks instead of queueing on each other; the outer
    // WHERE repeats the test on the row's newest version.
    claimPush: `UPDATE ${t.pushConfigs} c SET claim_holder = $1, claim_until = $2
      WHERE (c.tenant, c.owner, c.task_id, c.id) IN (
        SELECT tenant, owner, task_id, id FROM ${t.pushConfigs}
        WHERE task_seq > delivered_seq AND next_attempt_at <= $3 AND (claim_until IS NULL OR claim_until <= $3)
        ORDER BY next_attempt_at LIMIT $4 FOR UPDATE SKIP LOCKED)
        AND c.task_seq > c.delivered_seq AND (c.claim_until IS NULL OR c.claim_until <= $3)
      RETURNING ${PUSH_CLAIM_COLUMNS}`,
    pushSending: `UPDATE ${t.pushConfigs} SET claim_until = $7 WHERE ${PUSH_NEXT} RETURNING id`,
    // The cursor already at $6 under the same claim is a repeat of this acknowledgement: it changes nothing new.
    pushDelivered: `UPDATE ${t.pushConfigs} SET delivered_seq = $6, attempts = 0, failing_since = NULL,
        next_attempt_at = $7, claim_until = $8
      WHERE ${PUSH_HELD} AND delivered_seq BETWEEN $6::int - 1 AND $6 RETURNING id`,
    pushFailed: orLanded(
      `UPDATE ${t.pushConfigs} SET attempts = attempts + 1, failing_since = COALESCE(failing_since, $7),
        last_error = $8, next_attempt_at = $9, claim_until = NULL
      WHERE ${PUSH_NEXT}`,
      'delivered_seq = $6::int - 1 AND attempts > 0 AND next_attempt_at = $9',
    ),
    // Given up through $8, or (NULL) through every event committed so far.
    pushGivenUp: orLanded(
      `UPDATE ${t.pushConfigs} SET
        given_up_events = given_up_events + GREATEST($6, COALESCE($8::int, task_seq)) - delivered_seq,
        gave_up_from = $6, gave_up_through = GREATEST($6, COALESCE($8::int, task_seq)), gave_up_at = $7,
        gave_up_reason = $9, delivered_seq = GREATEST($6, COALESCE($8::int, task_seq)), attempts = 0,
        failing_since = NULL, last_error = $10, next_attempt_at = $7, claim_until = NULL
      WHERE ${PUSH_NEXT}`,
      'gave_up_from = $6 AND delivered_seq >= $6',
    ),
    pushReleased: orLanded(`UPDATE ${t.pushConfigs} SET claim_until = NULL WHERE ${PUSH_HELD}`, 'TRUE'),
    pushState: `SELECT ${PUSH_STATE_COLUMNS} FROM ${t.pushConfigs}
      WHERE tenant = $1 AND owner = $2 AND task_id = $3 AND id = $4`,

    // One atomic conditional upsert: take the role if it is free, lapsed, or already ours (ADR 0028). Racing
    // inserts of one role queue on its primary key; each then re-checks the WHERE on the committed row.
    tryLead: `INSERT INTO ${t.leases} AS l (role, holder, expires_at) VALUES ($1, $2, $3)
      ON CONFLICT (role) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
      WHERE l.holder = EXCLUDED.holder OR l.expires_at <= $4
      RETURNING role`,
  };
}
