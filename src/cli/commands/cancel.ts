/**
 * `a2a-once cancel URL TASK_ID [--json]`: cancel a task (CancelTask) and print its state.
 */
import { describeTask } from '../../client/index.js';
import type { CliIO } from '../io.js';
import { clientCommand, openClient, printJson, reportFailure } from '../client-command.js';
import type { ClientOptions } from '../client-command.js';
import { runCommand } from '../program.js';

/** Runs `a2a-once cancel`. */
export function run(args: string[], io: CliIO): Promise<number> {
  const command = clientCommand(io, 'cancel', 'cancel a task').argument('<task-id>', 'the task');
  return runCommand(command, args, io, async () => {
    const [url, taskId] = command.processedArgs as [string, string];
    const o = command.opts<ClientOptions>();
    const json = o.json === true;
    try {
      const client = await openClient(url, o, io, 'a2a-once cancel');
      const task = await client.cancelTask(taskId);
      if (json) printJson(io, task);
      else for (const line of describeTask(task)) io.out(line);
      return 0;
    } catch (err) {
      return reportFailure(err, io, json, 'a2a-once cancel');
    }
  });
}
