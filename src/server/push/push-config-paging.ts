/**
 * Paging of ListTaskPushNotificationConfigs (A2A v1.0 `pageSize`, `pageToken`, `nextPageToken`). A task's
 * configs are few (capped, ADR 0032) and every store lists them in creation order, so a page is a slice of that
 * list and the token says where the previous page ended: the ids of its last few configs, so the boundary is
 * found again when configs were deleted between the two calls, and its position, for when all of those are gone.
 */
import { InvalidParamsError } from '../../protocol/errors.js';
import type { TaskPushNotificationConfig } from '../../protocol/requests.js';

/** Configs in a page when the caller leaves `pageSize` unset or 0 (the proto default: "server decides"). */
export const DEFAULT_CONFIG_PAGE_SIZE = 50;
/** Configs in a page at most; a larger `pageSize` gets this many (a server may return fewer). */
export const MAX_CONFIG_PAGE_SIZE = 100;
/** Ids of the previous page's end kept in a token: enough to survive deletions, small enough to keep it short. */
const TAIL_IDS = 8;
const VERSION = 'pc1';

/** Where the previous page ended: its last ids (oldest first) and the position after it. */
interface ConfigCursor {
  readonly tail: readonly string[];
  readonly end: number;
}

function encodeCursor(taskId: string, c: ConfigCursor): string {
  return Buffer.from(JSON.stringify([VERSION, taskId, c.tail, c.end]), 'utf8').toString('base64url');
}

function invalidToken(): InvalidParamsError {
  return new InvalidParamsError({
    message: 'Invalid parameters: pageToken is not a token this server issued for this task',
    metadata: { fields: 'pageToken' },
  });
}

function isIdList(x: unknown): x is string[] {
  return Array.isArray(x) && x.length <= TAIL_IDS && x.every((id) => typeof id === 'string');
}

function decodeCursor(token: string, taskId: string): ConfigCursor {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalidToken();
  }
  if (!Array.isArray(v) || v.length !== 4) throw invalidToken();
  const [version, forTask, tail, end] = v as [unknown, unknown, unknown, unknown];
  if (version !== VERSION || forTask !== taskId || !isIdList(tail)) throw invalidToken();
  if (typeof end !== 'number' || !Number.isSafeInteger(end) || end < 0) throw invalidToken();
  return { tail, end };
}

/** Where the next page starts in `all`, given where the previous one ended. */
function startAfter(all: readonly TaskPushNotificationConfig[], cursor: ConfigCursor): number {
  for (let i = cursor.tail.length - 1; i >= 0; i--) {
    const at = all.findIndex((c) => c.id === cursor.tail[i]);
    if (at !== -1) return at + 1;
  }
  // Every config in the tail was deleted: at most that many moved up. Repeating one beats skipping one.
  return Math.min(Math.max(0, cursor.end - cursor.tail.length), all.length);
}

/** The page of `all` (a task's configs in creation order) that `pageSize` and `pageToken` ask for. */
export function configPage(
  all: readonly TaskPushNotificationConfig[],
  taskId: string,
  pageSize: number | undefined,
  pageToken: string | undefined,
): { configs: TaskPushNotificationConfig[]; nextPageToken: string } {
  const size = !pageSize ? DEFAULT_CONFIG_PAGE_SIZE : Math.min(pageSize, MAX_CONFIG_PAGE_SIZE);
  const start = pageToken ? startAfter(all, decodeCursor(pageToken, taskId)) : 0;
  const configs = all.slice(start, start + size);
  const end = start + configs.length;
  if (end >= all.length) return { configs, nextPageToken: '' };
  const tail = configs.slice(-TAIL_IDS).map((c) => c.id ?? '');
  return { configs, nextPageToken: encodeCursor(taskId, { tail, end }) };
}
