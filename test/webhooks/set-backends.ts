/**
 * The three processed-sets, each opened fresh for one test, with a second instance on the same storage (another
 * connection or pool, as a second receiver process would have) and a "notes" table an `apply` can write through
 * `tx`, to see what committed. Memory has no transaction to join: its notes are kept in an array instead.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { pgBackend, freshSchema, type PgBackend } from '../store-contract/pg-backend.js';
import {
  MemoryProcessedSet,
  PostgresProcessedSet,
  SqliteProcessedSet,
  type PgClientLike,
  type ProcessedSet,
} from '../../src/webhooks/index.js';

/** One note an apply wrote. */
export interface Note {
  taskId: string;
  seq: number;
  label: string;
}

/** A processed-set on fresh storage. */
export interface OpenSet<Tx> {
  readonly set: ProcessedSet<Tx>;
  /** Whether `note` writes join the record's transaction. */
  readonly joins: boolean;
  /** Whether one transaction at a time runs in this process (SQLite's one connection, PGlite's one session). */
  readonly oneAtATime: boolean;
  /** Another instance on the same storage (a second receiver process would open one like it). */
  twin(): Promise<ProcessedSet<Tx>>;
  /** Writes a note through `tx`. */
  note(tx: Tx, note: Note): Promise<void>;
  /** The committed notes, in the order they were written. */
  notes(): Promise<Note[]>;
  close(): Promise<void>;
}

/** A kind of processed-set. */
export interface SetBackend {
  readonly name: 'memory' | 'sqlite' | 'postgres';
  open(): Promise<OpenSet<unknown>>;
}

const memory: SetBackend = {
  name: 'memory',
  open() {
    const set = new MemoryProcessedSet();
    const written: Note[] = [];
    return Promise.resolve({
      set,
      joins: false,
      oneAtATime: false,
      twin: () => Promise.resolve(set),
      note: (_tx: unknown, n: Note) => Promise.resolve(void written.push(n)),
      notes: () => Promise.resolve([...written]),
      close: () => set.close(),
    });
  },
};

const sqlite: SetBackend = {
  name: 'sqlite',
  async open() {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-once-webhooks-'));
    const file = join(dir, 'receipts.db');
    const set = await SqliteProcessedSet.open(file);
    const sets: ProcessedSet<unknown>[] = [set];
    const reader = new Database(file);
    reader.exec(
      'CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, task_id TEXT, seq INTEGER, label TEXT)',
    );
    return {
      set: set,
      joins: true,
      oneAtATime: true,
      async twin() {
        const t = await SqliteProcessedSet.open(file);
        sets.push(t);
        return t;
      },
      note(tx: unknown, n: Note) {
        (tx as Database.Database)
          .prepare('INSERT INTO notes (task_id, seq, label) VALUES (?, ?, ?)')
          .run(n.taskId, n.seq, n.label);
        return Promise.resolve();
      },
      notes() {
        const rows = reader.prepare('SELECT task_id, seq, label FROM notes ORDER BY id').all() as {
          task_id: string;
          seq: number;
          label: string;
        }[];
        return Promise.resolve(rows.map((r) => ({ taskId: r.task_id, seq: r.seq, label: r.label })));
      },
      async close() {
        for (const s of sets) await s.close();
        reader.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

let pg: Promise<PgBackend> | undefined;

const postgres: SetBackend = {
  name: 'postgres',
  async open() {
    const backend = await (pg ??= pgBackend());
    const schema = freshSchema();
    const set = new PostgresProcessedSet(backend.pool(), { schema });
    await set.ready();
    const admin = backend.pool();
    await admin.query(
      `CREATE TABLE "${schema}".notes (id SERIAL PRIMARY KEY, task_id TEXT, seq INT, label TEXT)`,
    );
    return {
      set: set,
      joins: true,
      oneAtATime: backend.kind === 'pglite',
      twin: () =>
        Promise.resolve(new PostgresProcessedSet(backend.pool(), { schema }) as ProcessedSet<unknown>),
      async note(tx: unknown, n: Note) {
        await (tx as PgClientLike).query(
          `INSERT INTO "${schema}".notes (task_id, seq, label) VALUES ($1, $2, $3)`,
          [n.taskId, n.seq, n.label],
        );
      },
      async notes() {
        const { rows } = await admin.query(`SELECT task_id, seq, label FROM "${schema}".notes ORDER BY id`);
        return rows.map((r) => ({ taskId: String(r.task_id), seq: Number(r.seq), label: String(r.label) }));
      },
      async close() {
        await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
      },
    };
  },
};

/** Every processed-set. */
export const SET_BACKENDS: readonly SetBackend[] = [memory, sqlite, postgres];

/** Ends the PostgreSQL pools (call in afterAll). */
export async function endSetBackends(): Promise<void> {
  if (pg !== undefined) await (await pg).end();
}
