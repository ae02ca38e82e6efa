/**
 * `a2a-once send URL TEXT [--key auto|KEY] [--message-id ID] [--stream] [--task-id ID] [--no-retry] [--json]`:
 * send a message, once (docs/semantics.md §7). Without `--key` the client keys the send when the agent honours keys;
 * `--key auto` mints a key and prints it, `--key KEY` uses yours. Without `--message-id` a keyed send's message id
 * is derived from its key (ADR 0043), so running the same command again is a retry: the agent replays the task
 * instead of running it twice. The same key with other text is refused, in one line. Streamed updates print as
 * they arrive. An outcome the client cannot know exits 3 and says how to resend safely.
 */
import { OutcomeUnknownError, describeStreamEvent, describeTask } from '../../client/index.js';
import type { A2AClient, MessageInput, SendOptions } from '../../client/index.js';
import { describeKeyError, mintKey, validateKey } from '../../idempotency/index.js';
import { A2AError } from '../../protocol/errors.js';
import type { SendMessageResponse } from '../../protocol/model.js';
import type { CliIO } from '../io.js';
import { UsageError } from '../args.js';
import { clientCommand, openClient, reportFailure } from '../client-command.js';
import type { ClientOptions } from '../client-command.js';
import { runCommand } from '../program.js';

const NAME = 'a2a-once send';

/** After this long without an answer, a terminal is told what the wait is. */
const WAIT_NOTICE_MS = 1000;

interface SendFlags extends ClientOptions {
  key?: string;
  messageId?: string;
  taskId?: string;
  stream?: boolean;
}

function printResult(res: SendMessageResponse, io: CliIO, json: boolean): void {
  if (json) io.out(JSON.stringify(res));
  else if ('task' in res) for (const line of describeTask(res.task)) io.out(line);
  else io.out(`agent: ${res.message.parts.map((p) => ('text' in p ? p.text : JSON.stringify(p))).join(' ')}`);
}

/** The key to send with: none (the client decides), a fresh one for `auto`, or the caller's, checked. */
function keyOf(flag: string | undefined): string | undefined {
  if (flag === undefined || flag === 'auto') return flag === 'auto' ? mintKey() : undefined;
  const wrong = validateKey(flag);
  // The reason only: the key itself is never echoed (docs/semantics.md §1).
  if (wrong !== undefined) throw new UsageError(`--key: ${describeKeyError(wrong)}`);
  return flag;
}

/** The command that resends this send safely (same key, same message). Shown to its caller only. */
function resendCommand(url: string, text: string, key: string, o: SendFlags): string {
  const parts = [NAME, url, JSON.stringify(text), '--key', key];
  if (o.messageId !== undefined) parts.push('--message-id', o.messageId);
  if (o.taskId !== undefined) parts.push('--task-id', o.taskId);
  if (o.stream === true) parts.push('--stream');
  return parts.join(' ');
}

/** One line for the refusals of a keyed send a user can act on; undefined for the rest. */
function keyRefusal(err: unknown): string | undefined {
  if (!(err instanceof A2AError)) return undefined;
  if (err.reason === 'IDEMPOTENCY_KEY_REUSED')
    return (
      'this key was already used for a different message (IDEMPOTENCY_KEY_REUSED): to retry, resend the same ' +
      'text with the same key; for a new send, use a new key (--key auto)'
    );
  if (err.reason === 'IDEMPOTENCY_KEY_EXPIRED')
    return 'this key has expired on the agent (IDEMPOTENCY_KEY_EXPIRED): it will not run again; use a new key';
  return undefined;
}

async function sendOnce(
  client: A2AClient,
  message: MessageInput,
  options: SendOptions,
  o: SendFlags,
  io: CliIO,
): Promise<void> {
  const json = o.json === true;
  if (o.stream !== true) {
    printResult(await client.send(message, options), io, json);
    return;
  }
  for await (const ev of client.sendStream(message, options)) {
    if (json) io.out(JSON.stringify(ev));
    else for (const line of describeStreamEvent(ev)) io.out(line);
  }
}

/** Runs `a2a-once send`. */
export function run(args: string[], io: CliIO): Promise<number> {
  const command = clientCommand(io, 'send', 'send a message to an agent, once')
    .argument('<text>', 'the message text')
    .option(
      '--key <key>',
      'idempotency key: auto (mint one and print it) or your own, 16 to 255 of A-Z a-z 0-9 - _ . : ' +
        '(default: one minted when the card advertises keys)',
    )
    .option('--message-id <id>', 'message id (default: derived from the key for a keyed send, else random)')
    .option('--task-id <id>', 'continue this task (default: start a new one)')
    .option('--stream', 'stream updates as they arrive (SendStreamingMessage)');
  return runCommand(command, args, io, async () => {
    const [url, text] = command.processedArgs as [string, string];
    const o = command.opts<SendFlags>();
    const json = o.json === true;
    const key = keyOf(o.key);
    const message: MessageInput = {
      parts: [{ text }],
      ...(o.taskId !== undefined ? { taskId: o.taskId } : {}),
      ...(o.messageId !== undefined ? { messageId: o.messageId } : {}),
    };
    if (o.key === 'auto' && key !== undefined) {
      // Printed on purpose, to the caller only: the key is what makes a retry by hand safe.
      if (json) io.err(JSON.stringify({ key }));
      else io.err(`${NAME}: key ${key} (run again with --key ${key} to retry this send safely)`);
    }
    let notice: NodeJS.Timeout | undefined;
    try {
      const client = await openClient(url, o, io, NAME);
      const replays = key !== undefined && client.peerHonoursKeys;
      if (key !== undefined && !replays && !json) {
        io.err(
          `${NAME}: ${client.card === undefined ? 'no agent card was found, so nothing says' : "the agent's card does not say"} ` +
            'the agent honours idempotency keys: a resend may run it again',
        );
      }
      // A blocking send can take as long as the task does: a terminal is told what it is waiting for.
      if (io.isTTY && o.stream !== true)
        notice = setTimeout(() => {
          const hint = replays ? ' (Ctrl+C stops waiting; the same command run again gets the task)' : '';
          io.err(`${NAME}: waiting for the agent's answer${hint}`);
        }, WAIT_NOTICE_MS);
      await sendOnce(client, message, key === undefined ? {} : { key }, o, io);
      return 0;
    } catch (err) {
      const refusal = keyRefusal(err);
      if (refusal !== undefined && !json) {
        io.err(`${NAME}: ${refusal}`);
        return 1;
      }
      const code = reportFailure(err, io, json, NAME);
      if (err instanceof OutcomeUnknownError && err.key !== undefined && err.peerHonoursKeys && !json) {
        // The caller's own key, shown to the caller only, so a resend can be made safely by hand.
        io.err(`to resend safely: ${resendCommand(url, text, err.key, o)}`);
      }
      return code;
    } finally {
      clearTimeout(notice);
    }
  });
}
