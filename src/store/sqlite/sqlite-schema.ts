/**
 * The SQLite schema (ADR 0010). Times are epoch-ms INTEGERs from the store's clock; JSON is TEXT. Events and push
 * configs cascade from their task; keys have NO foreign key, so deleting a task never frees its key (a freed
 * key would let the next retry run the send again: seed 000 "Server support").
 */
import type { Migration } from '../sql/migration.js';

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
];
