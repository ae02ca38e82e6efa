/**
 * The SQLite schema (ADR 0010). Times are epoch-ms INTEGERs from the store's clock; JSON is TEXT. Events and push
 * configs cascade from their task; keys have NO foreign key, so deleting a task never frees its key (a freed
 * key would let the next retry run the send again: a2a-rust's idempotency extension, "Server support").
 */
import type { Migration } from '../sql/migration.js';
import { INTERRUPTED_STATES_SQL } from '../sql/sql-rows.js';

/** The ledger of applied versions. */
export const SQLITE_LEDGER = `CREATE TABLE IF NOT EXISTS a2a_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at INTEGER NOT NULL
)`;

/** Every SQLite migration, oldest first. */
export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'tasks, events, keys, push configs',
    statements: [
      `CREATE TABLE a2a_tasks (
        tenant TEXT NOT NULL,
        owner TEXT NOT NULL,
        id TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('task', 'message')),
        task TEXT NOT NULL,
        reply TEXT,
        fence INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        status_state TEXT NOT NULL,
        status_ts TEXT NOT NULL,
        context_id TEXT,
        terminal INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (tenant, owner, id)
      )`,
      // ListTasks: newest status timestamp first, then id descending (keyset paging), with and without contextId.
      `CREATE INDEX a2a_tasks_list ON a2a_tasks (tenant, owner, kind, status_ts DESC, id DESC)`,
      `CREATE INDEX a2a_tasks_context ON a2a_tasks (tenant, owner, context_id, status_ts DESC, id DESC)`,
      // Retention: finished tasks by age.
      `CREATE INDEX a2a_tasks_retention ON a2a_tasks (terminal, updated_at)`,
      `CREATE TABLE a2a_events (
        tenant TEXT NOT NULL,
        owner TEXT NOT NULL,
        task_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        event TEXT NOT NULL,
        PRIMARY KEY (tenant, owner, task_id, seq),
        FOREIGN KEY (tenant, owner, task_id) REFERENCES a2a_tasks (tenant, owner, id) ON DELETE CASCADE
      ) WITHOUT ROWID`,
      `CREATE TABLE a2a_keys (
        tenant TEXT NOT NULL,
        owner TEXT NOT NULL,
        key TEXT NOT NULL,
        message_id TEXT NOT NULL,
        digest TEXT NOT NULL,
        task_id TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        tombstone INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (tenant, owner, key)
      )`,
      // The expiry sweep: live keys past expiry, and tombstones past their age.
      `CREATE INDEX a2a_keys_expiry ON a2a_keys (tombstone, expires_at)`,
      `CREATE TABLE a2a_push_configs (
        tenant TEXT NOT NULL,
        owner TEXT NOT NULL,
        task_id TEXT NOT NULL,
        id TEXT NOT NULL,
        config TEXT NOT NULL,
        PRIMARY KEY (tenant, owner, task_id, id),
        FOREIGN KEY (tenant, owner, task_id) REFERENCES a2a_tasks (tenant, owner, id) ON DELETE CASCADE
      )`,
    ],
  },
  {
    version: 2,
    name: 'tombstone age, per-scope live key count, abandoned tasks, leases',
    statements: [
      // When the key became a tombstone: its age is counted from here, never from expires_at (ADR 0027).
      `ALTER TABLE a2a_keys ADD COLUMN tombstoned_at INTEGER`,
      `CREATE INDEX a2a_keys_tombstone_age ON a2a_keys (tombstone, tombstoned_at)`,
      // The key cap counts the live keys of one scope (tenant + principal) from the index alone, and at the cap
      // finds the scope's expired ones by the same index.
      `CREATE INDEX a2a_keys_scope_live ON a2a_keys (tenant, owner, tombstone, expires_at)`,
      // Retention's abandoned phase: interrupted tasks by age (ADR 0028).
      `CREATE INDEX a2a_tasks_interrupted ON a2a_tasks (status_state, updated_at)`,
      // Leadership for periodic work (tryLead, ADR 0028).
      `CREATE TABLE a2a_leases (
        role TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        expires_at INTEGER NOT NULL
      )`,
    ],
    atMigrationTime: [
      // Tombstones made before this version did not record when. It was some time between their key's expiry and
      // now; only "now" never cuts a tombstone's life short (an early delete would let a retry run again), so
      // their age starts at the migration: they may live up to one TTL longer than they would have.
      `UPDATE a2a_keys SET tombstoned_at = @now WHERE tombstone = 1`,
    ],
  },
  {
    version: 3,
    name: 'worker leases on tasks, durable steps',
    statements: [
      // The worker running the task's current turn and when its lease lapses (ADR 0036); NULL while none does.
      `ALTER TABLE a2a_tasks ADD COLUMN lease_owner TEXT`,
      `ALTER TABLE a2a_tasks ADD COLUMN lease_expires_at INTEGER`,
      // Recovery lists running tasks by lapse. Partial: only rows that can ever be listed are in it, so the index
      // stays the size of the running work, and the query walks it in order (no sort, no scan of finished tasks).
      // The predicate must stay textually the one of SQL.findLapsedLeases, or SQLite will not use the index.
      `CREATE INDEX a2a_tasks_lease ON a2a_tasks (lease_expires_at)
        WHERE lease_expires_at IS NOT NULL AND kind = 'task'
          AND status_state IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING')`,
      // A step's result, once per task and name; it goes with its task (ADR 0036).
      `CREATE TABLE a2a_steps (
        tenant TEXT NOT NULL,
        owner TEXT NOT NULL,
        task_id TEXT NOT NULL,
        name TEXT NOT NULL,
        result TEXT NOT NULL,
        fence INTEGER NOT NULL,
        recorded_at INTEGER NOT NULL,
        PRIMARY KEY (tenant, owner, task_id, name),
        FOREIGN KEY (tenant, owner, task_id) REFERENCES a2a_tasks (tenant, owner, id) ON DELETE CASCADE
      ) WITHOUT ROWID`,
    ],
  },
  {
    version: 4,
    name: 'delegation lease renewals on tasks',
    statements: [
      // When the task's delegating parent last renewed the lease it gave it (ADR 0044); NULL until it first does.
      // On the row, so a renewal that one replica takes is seen by the replica that runs the child.
      `ALTER TABLE a2a_tasks ADD COLUMN parent_renewed_at INTEGER`,
    ],
  },
  {
    version: 5,
    name: 'push delivery cursors',
    statements: [
      // The event log is the outbox (ADR 0045): each push config keeps how far delivery got. task_seq is the
      // task's seq as of its last commit, written by that commit, so pending work is task_seq > delivered_seq.
      `ALTER TABLE a2a_push_configs ADD COLUMN task_seq INTEGER NOT NULL DEFAULT 0`,
      `ALTER TABLE a2a_push_configs ADD COLUMN delivered_seq INTEGER NOT NULL DEFAULT 0`,
      `ALTER TABLE a2a_push_configs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0`,
      `ALTER TABLE a2a_push_configs ADD COLUMN next_attempt_at INTEGER NOT NULL DEFAULT 0`,
      `ALTER TABLE a2a_push_configs ADD COLUMN failing_since INTEGER`,
      `ALTER TABLE a2a_push_configs ADD COLUMN last_error TEXT`,
      `ALTER TABLE a2a_push_configs ADD COLUMN given_up_events INTEGER NOT NULL DEFAULT 0`,
      `ALTER TABLE a2a_push_configs ADD COLUMN gave_up_from INTEGER`,
      `ALTER TABLE a2a_push_configs ADD COLUMN gave_up_through INTEGER`,
      `ALTER TABLE a2a_push_configs ADD COLUMN gave_up_at INTEGER`,
      `ALTER TABLE a2a_push_configs ADD COLUMN gave_up_reason TEXT`,
      `ALTER TABLE a2a_push_configs ADD COLUMN claim_holder TEXT`,
      `ALTER TABLE a2a_push_configs ADD COLUMN claim_until INTEGER`,
      // Configs stored before delivery existed never sent anything: they start at the task's current event, so
      // an upgrade does not replay every old task's history to its webhooks.
      `UPDATE a2a_push_configs SET
        task_seq = (SELECT t.seq FROM a2a_tasks t WHERE t.tenant = a2a_push_configs.tenant
          AND t.owner = a2a_push_configs.owner AND t.id = a2a_push_configs.task_id),
        delivered_seq = (SELECT t.seq FROM a2a_tasks t WHERE t.tenant = a2a_push_configs.tenant
          AND t.owner = a2a_push_configs.owner AND t.id = a2a_push_configs.task_id)`,
      // The dispatcher's poll: only webhooks with work are in it, by when they are due. The predicate must stay
      // textually the one of SQL.claimablePush, or SQLite will not use the index.
      `CREATE INDEX a2a_push_due ON a2a_push_configs (next_attempt_at) WHERE task_seq > delivered_seq`,
    ],
  },
  {
    version: 6,
    name: 'partial indexes for retention, abandoned tasks and tombstone age',
    statements: [
      // Each holds only the rows its sweep can ever pick (ADR 0048): a running task is in neither of the first two,
      // so creating it and finishing it touch fewer indexes, and a live key is not in the third. Their predicates
      // must stay textually those of SQL.purgeTasks, SQL.selectAbandoned and SQL.purgeTombstones.
      `DROP INDEX a2a_tasks_retention`,
      `CREATE INDEX a2a_tasks_retention ON a2a_tasks (updated_at) WHERE terminal = 1`,
      `DROP INDEX a2a_tasks_interrupted`,
      `CREATE INDEX a2a_tasks_interrupted ON a2a_tasks (updated_at) WHERE status_state IN ${INTERRUPTED_STATES_SQL}`,
      `DROP INDEX a2a_keys_tombstone_age`,
      `CREATE INDEX a2a_keys_tombstone_age ON a2a_keys (tombstoned_at) WHERE tombstone = 1`,
    ],
  },
  {
    version: 7,
    name: 'the id of the last write applied to each task',
    statements: [
      // A retry of a write whose answer was lost is recognised by it and answered as landed (ADR 0052).
      `ALTER TABLE a2a_tasks ADD COLUMN write_id TEXT`,
    ],
  },
  {
    version: 8,
    name: 'durable step attempts',
    statements: [
      // Where each step's latest attempt stands, once per task and name; it goes with its task (ADR 0121).
      `CREATE TABLE a2a_step_attempts (
        tenant TEXT NOT NULL,
        owner TEXT NOT NULL,
        task_id TEXT NOT NULL,
        name TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        state TEXT NOT NULL,
        fence INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (tenant, owner, task_id, name),
        FOREIGN KEY (tenant, owner, task_id) REFERENCES a2a_tasks (tenant, owner, id) ON DELETE CASCADE
      ) WITHOUT ROWID`,
    ],
  },
];
