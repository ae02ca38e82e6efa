/**
 * `a2a-once cancel URL TASK_ID [--json]`: cancel a task (CancelTask) and print its state.
 */
import { describeTask } from '../../client/index.js';
import type { CliIO } from '../io.js';
import { openClient, parseClientArgs, reportFailure } from './card.js';

/** Runs `a2a-once cancel`. */
export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseClientArgs(args, io, {}, ['URL', 'TASK_ID']);
  if (typeof parsed === 'number') return parsed;
  const json = parsed.flags.has('json');
  try {
    const client = await openClient(parsed.positionals[0]!, parsed);
    const task = await client.cancelTask(parsed.positionals[1]!);
    if (json) io.out(JSON.stringify(task));
    else for (const line of describeTask(task)) io.out(line);
    return 0;
  } catch (err) {
    return reportFailure(err, io, json);
  }
}
