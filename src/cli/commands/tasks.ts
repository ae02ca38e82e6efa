/**
 * `a2a-once tasks URL [--context ID] [--status STATE] [--page-size N] [--page-token T] [--json]`: list tasks
 * (ListTasks), newest first, one line each.
 */
import type { ListTasksRequest } from '../../protocol/requests.js';
import { TASK_STATES } from '../../protocol/task-state.js';
import type { TaskState } from '../../protocol/task-state.js';
import type { CliIO } from '../io.js';
import { UsageError } from '../args.js';
import { openClient, parseClientArgs, reportFailure } from './card.js';

function stateOf(text: string): TaskState {
  const name = text.toUpperCase().replace(/-/g, '_');
  const full = (name.startsWith('TASK_STATE_') ? name : `TASK_STATE_${name}`) as TaskState;
  if (!TASK_STATES.includes(full)) throw new UsageError(`unknown task state '${text}'`);
  return full;
}

/** Runs `a2a-once tasks`. */
export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseClientArgs(args, io, { values: ['context', 'status', 'page-size', 'page-token'] }, [
    'URL',
  ]);
  if (typeof parsed === 'number') return parsed;
  const json = parsed.flags.has('json');
  try {
    const request: Omit<ListTasksRequest, 'tenant'> = {};
    const context = parsed.values.get('context');
    const status = parsed.values.get('status');
    const pageSize = parsed.values.get('page-size');
    const pageToken = parsed.values.get('page-token');
    if (context !== undefined) request.contextId = context;
    if (status !== undefined) request.status = stateOf(status);
    if (pageSize !== undefined) {
      if (!/^\d+$/.test(pageSize)) throw new UsageError('--page-size takes a number');
      request.pageSize = Number(pageSize);
    }
    if (pageToken !== undefined) request.pageToken = pageToken;
    const client = await openClient(parsed.positionals[0]!, parsed);
    const page = await client.listTasks(request);
    if (json) {
      io.out(JSON.stringify(page));
      return 0;
    }
    for (const t of page.tasks) {
      const state = t.status.state
        .replace(/^TASK_STATE_/, '')
        .toLowerCase()
        .replace(/_/g, '-');
      io.out(`${t.id}  ${state.padEnd(14)}  ${t.status.timestamp ?? ''}`);
    }
    io.out(
      `${page.tasks.length} of ${page.totalSize} task(s)${page.nextPageToken ? `; next page: --page-token ${page.nextPageToken}` : ''}`,
    );
    return 0;
  } catch (err) {
    return reportFailure(err, io, json);
  }
}
