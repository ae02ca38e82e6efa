/**
 * `a2a-once tasks URL [--context ID] [--status STATE] [--page-size N] [--page-token T] [--json]`: list tasks
 * (ListTasks), newest first, one line each.
 */
import type { ListTasksRequest } from '../../protocol/requests.js';
import { TASK_STATES } from '../../protocol/task-state.js';
import type { TaskState } from '../../protocol/task-state.js';
import type { CliIO } from '../io.js';
import { UsageError, integerOption } from '../args.js';
import { clientCommand, openClient, printJson, reportFailure } from '../client-command.js';
import type { ClientOptions } from '../client-command.js';
import { runCommand } from '../program.js';

interface TasksOptions extends ClientOptions {
  context?: string;
  status?: string;
  pageSize?: string;
  pageToken?: string;
}

/** The states a task can be listed by, as `--status` takes them. */
const LISTED_STATES = TASK_STATES.filter((s) => s !== 'TASK_STATE_UNSPECIFIED').map(stateName);

/** `completed`, `input-required` or `TASK_STATE_COMPLETED` → the wire name. */
function stateOf(text: string): TaskState {
  const name = text.toUpperCase().replace(/-/g, '_');
  const full = (name.startsWith('TASK_STATE_') ? name : `TASK_STATE_${name}`) as TaskState;
  if (!TASK_STATES.includes(full) || full === 'TASK_STATE_UNSPECIFIED')
    throw new UsageError(
      `--status: unknown task state '${text}'; the states are ${LISTED_STATES.join(', ')}`,
    );
  return full;
}

function stateName(state: string): string {
  return state
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace(/_/g, '-');
}

/** Runs `a2a-once tasks`. */
export function run(args: string[], io: CliIO): Promise<number> {
  const command = clientCommand(io, 'tasks', 'list tasks, newest first')
    .option('--context <id>', 'only the tasks of this context (default: all)')
    .option('--status <state>', `only tasks in this state: ${LISTED_STATES.join(', ')} (default: any)`)
    .option('--page-size <n>', "tasks per page (default: the agent's)")
    .option('--page-token <token>', 'the page to list, as the previous page named it (default: the first)');
  return runCommand(command, args, io, async () => {
    const [url] = command.processedArgs as [string];
    const o = command.opts<TasksOptions>();
    const json = o.json === true;
    const request: Omit<ListTasksRequest, 'tenant'> = {};
    if (o.context !== undefined) request.contextId = o.context;
    if (o.status !== undefined) request.status = stateOf(o.status);
    if (o.pageSize !== undefined) request.pageSize = integerOption('page-size', o.pageSize, 0);
    if (o.pageToken !== undefined) request.pageToken = o.pageToken;
    try {
      const client = await openClient(url, o, io, 'a2a-once tasks');
      const page = await client.listTasks(request);
      if (json) {
        printJson(io, page);
        return 0;
      }
      for (const t of page.tasks) {
        io.out(`${t.id}  ${stateName(t.status.state).padEnd(14)}  ${t.status.timestamp ?? ''}`);
      }
      io.out(
        `${page.tasks.length} of ${page.totalSize} task(s)${page.nextPageToken ? `; next page: --page-token ${page.nextPageToken}` : ''}`,
      );
      return 0;
    } catch (err) {
      return reportFailure(err, io, json, 'a2a-once tasks');
    }
  });
}
