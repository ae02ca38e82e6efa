/**
 * ListTasks over the in-memory store: filter, sort newest status timestamp first (ties by id, descending), and
 * cut one keyset page (page-token.ts), as every backend does.
 */
import { compareNewestFirst, decodePageToken, encodePageToken } from '../page-token.js';
import type { StoredTask } from '../records.js';
import type { TaskPage, TaskQuery } from '../task-store.js';

const pos = (r: StoredTask) => ({ timestamp: r.task.status.timestamp ?? '', id: r.task.id });

/** One page of `records` (task-kind, unexpired) for `query`. Throws InvalidParamsError for a bad token. */
export function pageOfTasks(records: readonly StoredTask[], query: TaskQuery): TaskPage {
  const after = query.pageToken === undefined ? undefined : decodePageToken(query.pageToken);
  const matches = records.filter((r) => {
    const t = r.task;
    if (query.contextId !== undefined && t.contextId !== query.contextId) return false;
    if (query.status !== undefined && t.status.state !== query.status) return false;
    return (
      query.statusTimestampAfter === undefined || (t.status.timestamp ?? '') >= query.statusTimestampAfter
    );
  });
  matches.sort((a, b) => compareNewestFirst(pos(a), pos(b)));
  const start = after === undefined ? 0 : matches.findIndex((r) => compareNewestFirst(pos(r), after) > 0);
  const from = start === -1 ? matches.length : start;
  const page = matches.slice(from, from + query.pageSize);
  const last = page[page.length - 1];
  const more = from + query.pageSize < matches.length;
  return {
    records: page,
    nextPageToken: more && last ? encodePageToken(pos(last)) : '',
    totalSize: matches.length,
  };
}
