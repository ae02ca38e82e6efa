/**
 * ListTasks cursors. A cursor names the last task of a page by (status timestamp, id), the order the pages are
 * sorted in, so a page boundary is stable while tasks are added (keyset paging, not offsets).
 */
import { InvalidParamsError } from '../protocol/errors.js';
import { unstorableTextProblem } from '../protocol/storable-text.js';

/** Position after which the next page starts. */
export interface PagePosition {
  readonly timestamp: string;
  readonly id: string;
}

/** Encodes a position as an opaque token. */
export function encodePageToken(pos: PagePosition): string {
  return Buffer.from(JSON.stringify([pos.timestamp, pos.id]), 'utf8').toString('base64url');
}

/**
 * Decodes a token; a malformed token is a validation error (-32602), the same on every store. So is a position
 * no store could have written (U+0000 or a lone surrogate, ADR 0059): it was forged, and PostgreSQL would
 * refuse to compare with it.
 */
export function decodePageToken(token: string): PagePosition {
  try {
    const v: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (
      Array.isArray(v) &&
      v.length === 2 &&
      typeof v[0] === 'string' &&
      typeof v[1] === 'string' &&
      unstorableTextProblem(v[0]) === undefined &&
      unstorableTextProblem(v[1]) === undefined
    ) {
      return { timestamp: v[0], id: v[1] };
    }
  } catch {
    // fall through to the error below
  }
  throw new InvalidParamsError({
    message: 'Invalid parameters: pageToken is not a token this server issued',
    metadata: { fields: 'pageToken' },
  });
}

/** Sort order of ListTasks: newest status timestamp first, then id descending. Negative when a comes first. */
export function compareNewestFirst(a: PagePosition, b: PagePosition): number {
  if (a.timestamp !== b.timestamp) return a.timestamp < b.timestamp ? 1 : -1;
  if (a.id !== b.id) return a.id < b.id ? 1 : -1;
  return 0;
}
