/**
 * `a2a-once send URL TEXT [--key auto|KEY] [--message-id ID] [--stream] [--task-id ID] [--no-retry] [--json]`:
 * send a message, once (docs/semantics.md §7). Without `--key` the client keys the send when the agent honours keys;
 * `--key auto` always mints one, `--key KEY` uses yours. Streamed updates print as they arrive. An outcome the
 * client cannot know exits 3 and says how to resend safely: the same key and the same message id.
 */
import { OutcomeUnknownError, describeStreamEvent, describeTask } from '../../client/index.js';
import type { MessageInput, SendOptions } from '../../client/index.js';
import { mintKey } from '../../idempotency/index.js';
import type { SendMessageResponse } from '../../protocol/model.js';
import type { CliIO } from '../io.js';
import { openClient, parseClientArgs, reportFailure } from './card.js';

function printResult(res: SendMessageResponse, io: CliIO, json: boolean): void {
  if (json) io.out(JSON.stringify(res));
  else if ('task' in res) for (const line of describeTask(res.task)) io.out(line);
  else io.out(`agent: ${res.message.parts.map((p) => ('text' in p ? p.text : JSON.stringify(p))).join(' ')}`);
}

/** Runs `a2a-once send`. */
export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseClientArgs(args, io, { values: ['key', 'task-id', 'message-id'], flags: ['stream'] }, [
    'URL',
    'TEXT',
  ]);
  if (typeof parsed === 'number') return parsed;
  const json = parsed.flags.has('json');
  const [url, text] = parsed.positionals as [string, string];
  const keyArg = parsed.values.get('key');
  const taskId = parsed.values.get('task-id');
  const messageId = parsed.values.get('message-id');
  const message: MessageInput = {
    parts: [{ text }],
    ...(taskId !== undefined ? { taskId } : {}),
    ...(messageId !== undefined ? { messageId } : {}),
  };
  const options: SendOptions = keyArg === undefined ? {} : { key: keyArg === 'auto' ? mintKey() : keyArg };
  try {
    const client = await openClient(url, parsed);
    if (!parsed.flags.has('stream')) {
      printResult(await client.send(message, options), io, json);
      return 0;
    }
    for await (const ev of client.sendStream(message, options)) {
      if (json) io.out(JSON.stringify(ev));
      else for (const line of describeStreamEvent(ev)) io.out(line);
    }
    return 0;
  } catch (err) {
    const code = reportFailure(err, io, json);
    if (err instanceof OutcomeUnknownError && err.key !== undefined && err.peerHonoursKeys && !json) {
      // The caller's own key, shown to the caller only, so a resend can be made safely by hand.
      io.err(
        `to resend safely: a2a-once send ${url} ${JSON.stringify(text)} --key ${err.key} --message-id ${err.messageId}`,
      );
    }
    return code;
  }
}
