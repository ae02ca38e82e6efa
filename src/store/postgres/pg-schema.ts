/**
 * The PostgreSQL schema (ADR 0010): the SQLite schema's tables with BIGINT epoch-ms times, BOOLEAN flags, and
 * `COLLATE "C"` on the columns ListTasks orders by, so the order is bytewise whatever the database's collation.
 * Keys have NO foreign key to tasks (a cascade would free a key with its task and let a retry run twice).
 */
import type { Migration } from '../sql/migration.js';
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
  ];
}
