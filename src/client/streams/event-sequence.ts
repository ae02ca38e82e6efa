/**
 * The task event sequence of an event a stream showed (ADR 0124, ADR 0126): what a consumer keeps to resume later
 * with `subscribe(taskId, { afterEventId })`.
 */
import type { StreamResponse } from '../../protocol/model.js';
import { eventSeqOf } from '../transport/transport.js';

/**
 * The sequence of `event` in its task's log, for an event yielded by `sendStream` or `subscribe` from a peer that
 * numbers its events (a2a-once); undefined otherwise. A snapshot's number is the last event it reflects, and so
 * is that of the updates a snapshot was turned into after a re-attachment to a peer without ids.
 */
export function eventSequenceOf(event: StreamResponse): number | undefined {
  return eventSeqOf(event);
}
