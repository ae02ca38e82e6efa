/**
 * `a2a-once get URL TASK_ID [--history N] [--json]`: print a task (GetTask).
 */
import { describeTask } from '../../client/index.js';
import type { CliIO } from '../io.js';
import { UsageError } from '../args.js';
import { openClient, parseClientArgs, reportFailure } from './card.js';

/** Runs `a2a-once get`. */
export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseClientArgs(args, io, { values: ['history'] }, ['URL', 'TASK_ID']);
  if (typeof parsed === 'number') return parsed;
  const json = parsed.flags.has('json');
  try {
    const history = parsed.values.get('history');
    if (history !== undefined && !/^\d+$/.test(history)) throw new UsageError('--history takes a number');
    const client = await openClient(parsed.positionals[0]!, parsed);
    const task = await client.getTask(
      parsed.positionals[1]!,
      history === undefined ? {} : { historyLength: Number(history) },
    );
    if (json) io.out(JSON.stringify(task));
    else for (const line of describeTask(task)) io.out(line);
    return 0;
  } catch (err) {
    return reportFailure(err, io, json);
  }
}
