/**
 * `a2a-once get URL TASK_ID [--history N] [--json]`: print a task (GetTask).
 */
import { describeTask } from '../../client/index.js';
import type { CliIO } from '../io.js';
import { integerOption } from '../args.js';
import { clientCommand, openClient, printJson, reportFailure } from '../client-command.js';
import type { ClientOptions } from '../client-command.js';
import { runCommand } from '../program.js';

/** Runs `a2a-once get`. */
export function run(args: string[], io: CliIO): Promise<number> {
  const command = clientCommand(io, 'get', 'get a task')
    .argument('<task-id>', 'the task')
    .option(
      '--history <n>',
      "include at most this many messages of the task's history (default: the agent's)",
    );
  return runCommand(command, args, io, async () => {
    const [url, taskId] = command.processedArgs as [string, string];
    const o = command.opts<ClientOptions & { history?: string }>();
    const json = o.json === true;
    const history = o.history === undefined ? undefined : integerOption('history', o.history, 0);
    try {
      const client = await openClient(url, o, io, 'a2a-once get');
      const task = await client.getTask(taskId, history === undefined ? {} : { historyLength: history });
      if (json) printJson(io, task);
      else for (const line of describeTask(task)) io.out(line);
      return 0;
    } catch (err) {
      return reportFailure(err, io, json, 'a2a-once get');
    }
  });
}
