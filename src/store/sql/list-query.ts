/**
 * The ListTasks SQL of both backends: the filters, the count (`totalSize`) and the keyset page. Order: newest
 * status timestamp first, then id descending; the cursor (page-token.ts) names the last row of the previous page,
 * so the next page is every row strictly after it in that order. Columns compare bytewise (SQLite BINARY,
 * PostgreSQL `COLLATE "C"`), the order of the memory store's string comparison for the ids we issue.
 */
import { encodePageToken, type PagePosition } from '../page-token.js';
import type { StoredTask } from '../records.js';
import type { Scope } from '../scope.js';
import type { TaskPage, TaskQuery } from '../task-store.js';
import { TASK_COLUMNS } from './sql-rows.js';

/** A statement with its positional values. */
export interface SqlText {
  readonly text: string;
  readonly values: unknown[];
}

/** The two statements of a page. */
export interface ListStatements {
  readonly count: SqlText;
  /** Selects `pageSize + 1` rows: the extra row says whether another page follows. */
  readonly page: SqlText;
}

/** Builds the count and page statements; `placeholder(n)` renders the n-th (1-based) parameter. */
export function buildListStatements(
  table: string,
  scope: Scope,
  query: TaskQuery,
  after: PagePosition | undefined,
  placeholder: (n: number) => string,
): ListStatements {
  const values: unknown[] = [];
  const p = (v: unknown): string => {
    values.push(v);
    return placeholder(values.length);
  };
  const where = [`tenant = ${p(scope.tenant)}`, `owner = ${p(scope.owner)}`, `kind = 'task'`];
  if (query.contextId !== undefined) where.push(`context_id = ${p(query.contextId)}`);
  if (query.status !== undefined) where.push(`status_state = ${p(query.status)}`);
  if (query.statusTimestampAfter !== undefined) where.push(`status_ts >= ${p(query.statusTimestampAfter)}`);
  const filter = where.join(' AND ');
  const count: SqlText = { text: `SELECT count(*) AS n FROM ${table} WHERE ${filter}`, values: [...values] };

  let keyset = '';
  if (after) {
    const ts1 = p(after.timestamp);
    const ts2 = p(after.timestamp);
    const id = p(after.id);
    keyset = ` AND (status_ts < ${ts1} OR (status_ts = ${ts2} AND id < ${id}))`;
  }
  const limit = p(Math.max(0, query.pageSize) + 1);
  const page: SqlText = {
    text: `SELECT ${TASK_COLUMNS} FROM ${table} WHERE ${filter}${keyset} ORDER BY status_ts DESC, id DESC LIMIT ${limit}`,
    values,
  };
  return { count, page };
}

/** Turns the `pageSize + 1` rows of a page query into the page (the extra row only signals "more"). */
export function toTaskPage(rows: readonly StoredTask[], pageSize: number, totalSize: number): TaskPage {
  const records = rows.slice(0, Math.max(0, pageSize));
  const last = records[records.length - 1];
  const more = rows.length > records.length;
  return {
    records,
    nextPageToken:
      more && last ? encodePageToken({ timestamp: last.task.status.timestamp ?? '', id: last.task.id }) : '',
    totalSize,
  };
}
