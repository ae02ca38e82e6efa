/**
 * Where a resumed stream starts (docs/semantics.md §7 "Resuming a stream", ADR 0125): the sequence a
 * `Last-Event-ID` names, checked against the task's log. One check for every binding, in the request handler.
 */
import { LastEventIdInvalidError } from '../protocol/errors.js';
import type { StoredTask } from '../store/records.js';

/**
 * The sequence to resume `record`'s stream after, or undefined when the call does not resume one. An id past the
 * task's last event names nothing this task sent (another task's id, or a client bug), and is refused rather than
 * answered with a stream that would wait for events the caller believes it has.
 * @throws LastEventIdInvalidError when `after` is past the task's last event
 */
export function resumePoint(record: StoredTask, after: number | undefined): number | undefined {
  if (after === undefined) return undefined;
  if (after > record.seq) {
    throw new LastEventIdInvalidError({
      message: `Last-Event-ID ${after} is past the task's last event (${record.seq})`,
      metadata: { taskId: record.task.id, lastEventId: String(after), latestEventId: String(record.seq) },
    });
  }
  return after;
}
