/**
 * The PostgreSQL schema (ADR 0010): the SQLite schema's tables with BIGINT epoch-ms times, BOOLEAN flags, and
 * `COLLATE "C"` on the columns ListTasks orders by, so the order is bytewise whatever the database's collation.
 * Keys have NO foreign key to tasks (a cascade would free a key with its task and let a retry run twice). Events
 * have none from version 7: a trigger deletes them with their task (ADR 0051).
 */
import type { Migration } from '../sql/migration.js';
import { INTERRUPTED_STATES_SQL } from '../sql/sql-rows.js';
import type { PgTables } from './pg-tables.js';

/** The ledger of applied versions. */
export function pgLedger(t: PgTables): string {
  return `CREATE TABLE IF NOT EXISTS ${t.migrations} (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at BIGINT NOT NULL
  )`;
}

/** Every PostgreSQL migration for the tables `t`, oldest first. */
export function pgMigrations(t: PgTables): readonly Migration[] {
  return [
    {
      version: 1,
      name: 'tasks, events, keys, push configs',
      statements: [
        `CREATE TABLE ${t.tasks} (
          tenant TEXT COLLATE "C" NOT NULL,
          owner TEXT COLLATE "C" NOT NULL,
          id TEXT COLLATE "C" NOT NULL,
          kind TEXT NOT NULL CHECK (kind IN ('task', 'message')),
          task TEXT NOT NULL,
          reply TEXT,
          fence INTEGER NOT NULL,
          seq INTEGER NOT NULL,
          status_state TEXT NOT NULL,
          status_ts TEXT COLLATE "C" NOT NULL,
          context_id TEXT COLLATE "C",
          terminal BOOLEAN NOT NULL,
          created_at BIGINT NOT NULL,
          updated_at BIGINT NOT NULL,
          PRIMARY KEY (tenant, owner, id)
        )`,
        `CREATE INDEX a2a_tasks_list ON ${t.tasks} (tenant, owner, kind, status_ts DESC, id DESC)`,
        `CREATE INDEX a2a_tasks_context ON ${t.tasks} (tenant, owner, context_id, status_ts DESC, id DESC)`,
        `CREATE INDEX a2a_tasks_retention ON ${t.tasks} (terminal, updated_at)`,
        `CREATE TABLE ${t.events} (
          tenant TEXT COLLATE "C" NOT NULL,
          owner TEXT COLLATE "C" NOT NULL,
          task_id TEXT COLLATE "C" NOT NULL,
          seq INTEGER NOT NULL,
          event TEXT NOT NULL,
          PRIMARY KEY (tenant, owner, task_id, seq),
          FOREIGN KEY (tenant, owner, task_id) REFERENCES ${t.tasks} (tenant, owner, id) ON DELETE CASCADE
        )`,
        `CREATE TABLE ${t.keys} (
          tenant TEXT COLLATE "C" NOT NULL,
          owner TEXT COLLATE "C" NOT NULL,
          key TEXT COLLATE "C" NOT NULL,
          message_id TEXT NOT NULL,
          digest TEXT NOT NULL,
          task_id TEXT COLLATE "C" NOT NULL,
          created_at BIGINT NOT NULL,
          expires_at BIGINT NOT NULL,
          tombstone BOOLEAN NOT NULL DEFAULT FALSE,
          PRIMARY KEY (tenant, owner, key)
        )`,
        `CREATE INDEX a2a_keys_expiry ON ${t.keys} (tombstone, expires_at)`,
        `CREATE TABLE ${t.pushConfigs} (
          tenant TEXT COLLATE "C" NOT NULL,
          owner TEXT COLLATE "C" NOT NULL,
          task_id TEXT COLLATE "C" NOT NULL,
          id TEXT COLLATE "C" NOT NULL,
          pos BIGINT GENERATED ALWAYS AS IDENTITY,
          config TEXT NOT NULL,
          PRIMARY KEY (tenant, owner, task_id, id),
          FOREIGN KEY (tenant, owner, task_id) REFERENCES ${t.tasks} (tenant, owner, id) ON DELETE CASCADE
        )`,
      ],
    },
    {
      version: 2,
      name: 'tombstone age, per-scope live key count, abandoned tasks, leases',
      statements: [
        // When the key became a tombstone: its age is counted from here, never from expires_at (ADR 0027).
        `ALTER TABLE ${t.keys} ADD COLUMN tombstoned_at BIGINT`,
        `CREATE INDEX a2a_keys_tombstone_age ON ${t.keys} (tombstone, tombstoned_at)`,
        // The key cap counts the live keys of one scope (tenant + principal) from the index alone, and at the cap
        // finds the scope's expired ones by the same index.
        `CREATE INDEX a2a_keys_scope_live ON ${t.keys} (tenant, owner, tombstone, expires_at)`,
        // Retention's abandoned phase: interrupted tasks by age (ADR 0028).
        `CREATE INDEX a2a_tasks_interrupted ON ${t.tasks} (status_state, updated_at)`,
        // Leadership for periodic work (tryLead, ADR 0028).
        `CREATE TABLE ${t.leases} (
          role TEXT COLLATE "C" PRIMARY KEY,
          holder TEXT COLLATE "C" NOT NULL,
          expires_at BIGINT NOT NULL
        )`,
      ],
      atMigrationTime: [
        // Tombstones made before this version did not record when. It was some time between their key's expiry
        // and now; only "now" never cuts a tombstone's life short (an early delete would let a retry run again),
        // so their age starts at the migration: they may live up to one TTL longer than they would have.
        `UPDATE ${t.keys} SET tombstoned_at = $1 WHERE tombstone`,
      ],
    },
    {
      version: 3,
      name: 'worker leases on tasks, durable steps',
      statements: [
        // The worker running the task's current turn and when its lease lapses (ADR 0036); NULL while none does.
        // Nullable columns without a default: adding them rewrites nothing.
        `ALTER TABLE ${t.tasks} ADD COLUMN lease_owner TEXT COLLATE "C", ADD COLUMN lease_expires_at BIGINT`,
        // Recovery lists running tasks by lapse. Partial: only rows that can ever be listed are in it, so the
        // index stays the size of the running work and the query reads it in order (no sort, no scan).
        `CREATE INDEX a2a_tasks_lease ON ${t.tasks} (lease_expires_at)
          WHERE lease_expires_at IS NOT NULL AND kind = 'task'
            AND status_state IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING')`,
        // A step's result, once per task and name; it goes with its task. TEXT, not JSONB: the result must come
        // back exactly as recorded (JSONB reorders keys and refuses \u0000), and we never query inside it.
        `CREATE TABLE ${t.steps} (
          tenant TEXT COLLATE "C" NOT NULL,
          owner TEXT COLLATE "C" NOT NULL,
          task_id TEXT COLLATE "C" NOT NULL,
          name TEXT COLLATE "C" NOT NULL,
          result TEXT NOT NULL,
          fence INTEGER NOT NULL,
          recorded_at BIGINT NOT NULL,
          PRIMARY KEY (tenant, owner, task_id, name),
          FOREIGN KEY (tenant, owner, task_id) REFERENCES ${t.tasks} (tenant, owner, id) ON DELETE CASCADE
        )`,
      ],
    },
    {
      version: 4,
      name: 'delegation lease renewals on tasks',
      statements: [
        // When the task's delegating parent last renewed the lease it gave it (ADR 0044); NULL until it first
        // does. On the row, so a renewal one replica takes is seen by the replica that runs the child. Not
        // indexed, so a renewal is a HOT update that touches no index.
        `ALTER TABLE ${t.tasks} ADD COLUMN parent_renewed_at BIGINT`,
      ],
    },
    {
      version: 5,
      name: 'push delivery cursors',
      statements: [
        // The event log is the outbox (ADR 0045): each push config keeps how far delivery got. task_seq is the
        // task's seq as of its last commit, written by that commit, so pending work is task_seq > delivered_seq.
        `ALTER TABLE ${t.pushConfigs}
          ADD COLUMN task_seq INTEGER NOT NULL DEFAULT 0,
          ADD COLUMN delivered_seq INTEGER NOT NULL DEFAULT 0,
          ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0,
          ADD COLUMN next_attempt_at BIGINT NOT NULL DEFAULT 0,
          ADD COLUMN failing_since BIGINT,
          ADD COLUMN last_error TEXT,
          ADD COLUMN given_up_events INTEGER NOT NULL DEFAULT 0,
          ADD COLUMN gave_up_from INTEGER,
          ADD COLUMN gave_up_through INTEGER,
          ADD COLUMN gave_up_at BIGINT,
          ADD COLUMN gave_up_reason TEXT,
          ADD COLUMN claim_holder TEXT COLLATE "C",
          ADD COLUMN claim_until BIGINT`,
        // Configs stored before delivery existed never sent anything: they start at the task's current event, so
        // an upgrade does not replay every old task's history to its webhooks.
        `UPDATE ${t.pushConfigs} c SET task_seq = x.seq, delivered_seq = x.seq FROM ${t.tasks} x
          WHERE x.tenant = c.tenant AND x.owner = c.owner AND x.id = c.task_id`,
        // The dispatcher's poll: only webhooks with work are in it, by when they are due.
        `CREATE INDEX a2a_push_due ON ${t.pushConfigs} (next_attempt_at) WHERE task_seq > delivered_seq`,
      ],
    },
    {
      version: 6,
      name: 'partial indexes for retention, abandoned tasks and tombstone age; ListTasks indexes reordered',
      statements: [
        // Each holds only the rows its sweep can ever pick (ADR 0048): a running task is in neither of the first
        // two, so creating it and finishing it touch fewer indexes, and a live key is not in the third.
        `DROP INDEX ${t.quotedSchema}.a2a_tasks_retention`,
        `CREATE INDEX a2a_tasks_retention ON ${t.tasks} (updated_at) WHERE terminal`,
        `DROP INDEX ${t.quotedSchema}.a2a_tasks_interrupted`,
        `CREATE INDEX a2a_tasks_interrupted ON ${t.tasks} (updated_at)
          WHERE status_state IN ${INTERRUPTED_STATES_SQL} AND kind = 'task'`,
        `DROP INDEX ${t.quotedSchema}.a2a_keys_tombstone_age`,
        `CREATE INDEX a2a_keys_tombstone_age ON ${t.keys} (tombstoned_at) WHERE tombstone`,
        // ListTasks' indexes lead with their own equality column (kind, context_id), not with (tenant, owner).
        // Led by (tenant, owner) and ending in id, they could serve a lookup by id too, by scanning the whole
        // scope: before a table's first ANALYZE the planner cannot tell that from the primary key and often
        // picked them, making every commit and read of a task cost a scan of its scope (found by the store bench).
        `DROP INDEX ${t.quotedSchema}.a2a_tasks_list`,
        `CREATE INDEX a2a_tasks_list ON ${t.tasks} (kind, tenant, owner, status_ts DESC, id DESC)`,
        `DROP INDEX ${t.quotedSchema}.a2a_tasks_context`,
        `CREATE INDEX a2a_tasks_context ON ${t.tasks} (context_id, tenant, owner, status_ts DESC, id DESC)`,
      ],
    },
    {
      version: 7,
      name: "a task's events go with it by trigger, not by foreign key",
      statements: [
        // The foreign key checked every appended event against its task, row by row (a third of a commit's time,
        // ADR 0051). A commit appends events only for the task row its own compare-and-set just updated, in the
        // same statement, so the check can never fail; what the key still did was delete a task's events with
        // it. This trigger does that for every DELETE of tasks, whoever runs it (retention, a released claim, an
        // operator, a replica of an older build during a rolling upgrade), once per statement.
        `CREATE FUNCTION ${t.quotedSchema}.a2a_tasks_delete_events() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          DELETE FROM ${t.events} e USING gone g
            WHERE e.tenant = g.tenant AND e.owner = g.owner AND e.task_id = g.id;
          RETURN NULL;
        END
        $$`,
        `CREATE TRIGGER a2a_tasks_delete_events AFTER DELETE ON ${t.tasks}
          REFERENCING OLD TABLE AS gone FOR EACH STATEMENT
          EXECUTE FUNCTION ${t.quotedSchema}.a2a_tasks_delete_events()`,
        // By its name in the catalog: the key was named by PostgreSQL when version 1 created the table.
        `DO $$
        DECLARE fk TEXT;
        BEGIN
          SELECT conname INTO fk FROM pg_constraint
            WHERE conrelid = '${t.events}'::regclass AND contype = 'f';
          IF fk IS NOT NULL THEN
            EXECUTE format('ALTER TABLE ${t.events} DROP CONSTRAINT %I', fk);
          END IF;
        END
        $$`,
      ],
    },
    {
      version: 8,
      name: 'the id of the last write applied to each task',
      statements: [
        // A retry of a write whose answer was lost is recognised by it and answered as landed (ADR 0052).
        `ALTER TABLE ${t.tasks} ADD COLUMN write_id TEXT`,
      ],
    },
    {
      version: 9,
      name: 'durable step attempts',
      statements: [
        // Where each step's latest attempt stands, once per task and name; it goes with its task (ADR 0121).
        `CREATE TABLE ${t.stepAttempts} (
          tenant TEXT COLLATE "C" NOT NULL,
          owner TEXT COLLATE "C" NOT NULL,
          task_id TEXT COLLATE "C" NOT NULL,
          name TEXT COLLATE "C" NOT NULL,
          attempt INTEGER NOT NULL,
          state TEXT NOT NULL,
          fence INTEGER NOT NULL,
          updated_at BIGINT NOT NULL,
          PRIMARY KEY (tenant, owner, task_id, name),
          FOREIGN KEY (tenant, owner, task_id) REFERENCES ${t.tasks} (tenant, owner, id) ON DELETE CASCADE
        )`,
      ],
    },
  ];
}
