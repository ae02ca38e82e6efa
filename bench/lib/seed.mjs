// Bulk seeding for scale.mjs: copies of one template task written straight into a SQLite file or a PostgreSQL
// schema with INSERT ... SELECT, not through the API (millions of sends would take hours and measure nothing
// but the sends). The template is a real task the store itself wrote (through a server, or the store API), so
// every row of every table that belongs to it (the task, its events, its key, steps, push configs) is copied
// with the same shape, indexes and all. The copies differ from the template in their ids: every text column has
// the template's task id, context id, message id and key replaced by the copy's own, made from the template's
// value with its last 12 characters swapped for the copy's number in hex. Columns are read from the catalog, so
// the seeder follows the schema as migrations change it; `overrides` sets columns per table (timestamps of an
// expired task, a lapsed lease).
import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';

/** Tables that hold a task's rows, and the column naming the task in each. */
const TASK_TABLES = { a2a_tasks: 'id' };

/** Free bytes on the file system holding `path`. */
export function freeBytes(path) {
  const s = statfsSync(path);
  return s.bavail * s.bsize;
}

/** Throws unless `needBytes` plus a 5 GB margin are free where `path` lives. */
export function checkDisk(path, needBytes, what) {
  const free = freeBytes(path);
  if (free < needBytes + 5e9) {
    throw new Error(
      `${what} needs about ${(needBytes / 1e9).toFixed(1)} GB and ${dirname(path)} has ${(free / 1e9).toFixed(1)} GB ` +
        'free (5 GB kept in reserve): choose smaller --counts',
    );
  }
}

/** SQLite: the template's identifiers and the table layout, read from the file. */
function sqliteLayout(db) {
  const tables = db
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'a2a_%'`)
    .all()
    .map((r) => r.name);
  const layout = [];
  for (const t of tables) {
    const cols = db.prepare(`PRAGMA table_info(${t})`).all();
    const by = TASK_TABLES[t] ?? (cols.some((c) => c.name === 'task_id') ? 'task_id' : undefined);
    if (by)
      layout.push({ table: t, by, cols: cols.map((c) => ({ name: c.name, text: /TEXT/i.test(c.type) })) });
  }
  return layout;
}

function templateIds(get) {
  const task = get(`SELECT id, context_id FROM a2a_tasks LIMIT 2`);
  if (task.length !== 1)
    throw new Error(`the template store must hold exactly one task, it holds ${task.length}`);
  const key = get(`SELECT key, message_id FROM a2a_keys LIMIT 2`);
  if (key.length > 1) throw new Error('the template store must hold at most one key');
  const ids = [task[0].id, task[0].context_id, key[0]?.key, key[0]?.message_id].filter(
    (v) => typeof v === 'string' && v.length > 12,
  );
  return { taskId: task[0].id, ids };
}

/**
 * Adds copies `from` to `to - 1` of the template task in the SQLite file at `path`, in transactions of `batch`
 * copies, and returns the template. `template`: what an earlier call returned; without it the file must hold
 * exactly one task, which becomes the template. `overrides`: { table: { column: 'SQL expression' } }, the
 * expression may use `i`, the copy's number.
 */
export async function seedSqlite(path, { from, to, batch = 50_000, overrides = {}, template }) {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF'); // seeding only: the bench measures the store afterwards with its own settings
    template ??= templateIds((sql) => db.prepare(sql).all());
    const { taskId, ids } = template;
    const suffix = (v) => `substr('${v}', 1, ${v.length - 12}) || printf('%012x', i)`;
    const swap = (col) => ids.reduce((e, v) => `replace(${e}, '${v}', ${suffix(v)})`, col);
    const statements = sqliteLayout(db).map(({ table, by, cols }) => {
      const exprs = cols.map(
        (c) => overrides[table]?.[c.name] ?? (c.text ? swap(`t.${c.name}`) : `t.${c.name}`),
      );
      return db.prepare(
        `WITH RECURSIVE seq(i) AS (SELECT @lo UNION ALL SELECT i + 1 FROM seq WHERE i < @hi)
         INSERT INTO ${table} (${cols.map((c) => c.name).join(', ')})
         SELECT ${exprs.join(', ')} FROM seq, ${table} t WHERE t.${by} = '${taskId}'`,
      );
    });
    const run = db.transaction((lo, hi) => statements.forEach((s) => s.run({ lo, hi })));
    for (let lo = from; lo < to; lo += batch) run(lo, Math.min(to, lo + batch) - 1);
    db.pragma('wal_checkpoint(TRUNCATE)');
    return template;
  } finally {
    db.close();
  }
}

/** PostgreSQL: as seedSqlite, in schema `schema` of the database at `url`; then ANALYZE of its tables. */
export async function seedPostgres(url, schema, { from, to, batch = 50_000, overrides = {}, template }) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`SET synchronous_commit = off`); // seeding only
    const get = async (sql) => (await client.query(sql.replaceAll('a2a_', `"${schema}".a2a_`))).rows;
    if (!template) {
      const task = await get(`SELECT id, context_id FROM a2a_tasks LIMIT 2`);
      const key = await get(`SELECT key, message_id FROM a2a_keys LIMIT 2`);
      template = templateIds((sql) => (sql.includes('a2a_tasks') ? task : key));
    }
    const { taskId, ids } = template;
    const cols = (
      await client.query(
        // Identity and generated columns take their own values in the copies.
        `SELECT table_name, column_name, data_type FROM information_schema.columns
         WHERE table_schema = $1 AND table_name LIKE 'a2a\\_%' AND is_identity = 'NO' AND is_generated = 'NEVER'
         ORDER BY table_name, ordinal_position`,
        [schema],
      )
    ).rows;
    const tables = new Map();
    for (const c of cols) {
      if (!tables.has(c.table_name)) tables.set(c.table_name, []);
      tables.get(c.table_name).push({ name: c.column_name, text: c.data_type === 'text' });
    }
    const suffix = (v) => `substr('${v}', 1, ${v.length - 12}) || lpad(to_hex(i), 12, '0')`;
    const swap = (col) => ids.reduce((e, v) => `replace(${e}, '${v}', ${suffix(v)})`, col);
    const statements = [];
    for (const [table, tcols] of tables) {
      const by = TASK_TABLES[table] ?? (tcols.some((c) => c.name === 'task_id') ? 'task_id' : undefined);
      if (!by) continue;
      const exprs = tcols.map(
        (c) => overrides[table]?.[c.name] ?? (c.text ? swap(`t.${c.name}`) : `t.${c.name}`),
      );
      statements.push(
        `INSERT INTO "${schema}".${table} (${tcols.map((c) => c.name).join(', ')})
         SELECT ${exprs.join(', ')} FROM generate_series($1::bigint, $2::bigint) AS g(i), "${schema}".${table} t
         WHERE t.${by} = '${taskId}'`,
      );
    }
    // The task table first: the others reference it.
    statements.sort((a, b) => Number(b.includes('.a2a_tasks (')) - Number(a.includes('.a2a_tasks (')));
    for (let lo = from; lo < to; lo += batch) {
      await client.query('BEGIN');
      for (const s of statements) await client.query(s, [lo, Math.min(to, lo + batch) - 1]);
      await client.query('COMMIT');
    }
    for (const table of tables.keys()) await client.query(`ANALYZE "${schema}".${table}`);
    return template;
  } finally {
    await client.end();
  }
}
