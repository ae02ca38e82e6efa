/**
 * `a2a-once send URL TEXT [--key auto|KEY] [--message-id ID] [--stream] [--task-id ID] [--no-retry] [--json]`:
 * send a message, once (docs/semantics.md §7). Without `--key` the client keys the send when the agent honours keys;
 * `--key auto` mints a key and prints it, `--key KEY` uses yours. Without `--message-id` a keyed send's message id
 * is derived from its key (ADR 0043), so running the same command again is a retry: the agent replays the task
 * instead of running it twice. The same key with other text is refused, in one line. Streamed updates print as
 * they arrive. A replayed send says so (the server's `A2A-Once-Admission`, ADR 0086). An outcome the client cannot
 * know exits 3 and says how to resend safely; a task that ended FAILED, CANCELED or REJECTED exits 4, 5 or 6; a
 * task waiting for input prints the command that answers it. JSON output has its keys redacted (`redactKeys`).
 */
import { OutcomeUnknownError, describeStreamEvent, describeTask } from '../../client/index.js';
import type { A2AClient, MessageInput, SendOptions } from '../../client/index.js';
import { describeKeyError, mintKey, validateKey } from '../../idempotency/index.js';
import { A2AError } from '../../protocol/errors.js';
import type { SendMessageResponse, StreamResponse } from '../../protocol/model.js';
import type { CliIO } from '../io.js';
import { UsageError } from '../args.js';
import { clientCommand, exitCodeOfState, openClient, printJson, reportFailure } from '../client-command.js';
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

/** Prints the answer; returns the state its task is in (undefined for a direct reply). */
function printResult(res: SendMessageResponse, io: CliIO, json: boolean): string | undefined {
  if (json) printJson(io, res);
  else if ('task' in res) for (const line of describeTask(res.task)) io.out(line);
  else io.out(`agent: ${res.message.parts.map((p) => ('text' in p ? p.text : JSON.stringify(p))).join(' ')}`);
  return 'task' in res ? res.task.status.state : undefined;
}

/** The state a stream event leaves its task in, if it says. */
function stateAfter(ev: StreamResponse): string | undefined {
  if ('task' in ev) return ev.task.status.state;
  if ('statusUpdate' in ev) return ev.statusUpdate.status.state;
  return undefined;
}

/** The key to send with: none (the client decides), a fresh one for `auto`, or the caller's, checked. */
function keyOf(flag: string | undefined): string | undefined {
  if (flag === undefined || flag === 'auto') return flag === 'auto' ? mintKey() : undefined;
  const wrong = validateKey(flag);
  // The reason only: the key itself is never echoed (docs/semantics.md §1).
  if (wrong !== undefined) throw new UsageError(`--key: ${describeKeyError(wrong)}`);
  return flag;
}

/**
 * The command that resends this send safely (same key, same message). A key this run minted is shown, to its
 * caller only, since nothing else knows it; the caller's own `--key` is not repeated back (they have it, and a
 * terminal's scrollback or a CI log is no place for it).
 */
function resendCommand(url: string, text: string, key: string, o: SendFlags): string {
  const own = o.key !== undefined && o.key !== 'auto';
  const parts = [NAME, url, JSON.stringify(text), '--key', own ? '<the same --key>' : key];
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

/** Sends and prints; returns the task's id and the state the answer left it in (none for a direct reply). */
async function sendOnce(
  client: A2AClient,
  message: MessageInput,
  options: SendOptions,
  o: SendFlags,
  io: CliIO,
): Promise<{ taskId?: string; state?: string }> {
  const json = o.json === true;
  if (o.stream !== true) {
    const res = await client.send(message, options);
    const state = printResult(res, io, json);
    return 'task' in res ? { taskId: res.task.id, ...(state ? { state } : {}) } : {};
  }
  let last: { taskId?: string; state?: string } = {};
  for await (const ev of client.sendStream(message, options)) {
    if (json) printJson(io, ev);
    else for (const line of describeStreamEvent(ev)) io.out(line);
    const state = stateAfter(ev);
    const taskId = 'task' in ev ? ev.task.id : 'statusUpdate' in ev ? ev.statusUpdate.taskId : undefined;
    if (state !== undefined && taskId !== undefined) last = { taskId, state };
  }
  return last;
}

/** What the caller can do next with a task the agent left waiting: the command that answers it. */
function nextStep(
  url: string,
  outcome: { taskId?: string; state?: string },
  o: SendFlags,
): string | undefined {
  if (outcome.taskId === undefined) return undefined;
  const stream = o.stream === true ? ' --stream' : '';
  if (outcome.state === 'TASK_STATE_INPUT_REQUIRED')
    return `the agent needs your input; to answer: ${NAME} ${url} "<your answer>" --task-id ${outcome.taskId}${stream}`;
  if (outcome.state === 'TASK_STATE_AUTH_REQUIRED')
    return (
      'the agent needs an authorization (its message above says which); once given, to go on: ' +
      `${NAME} ${url} "<your reply>" --task-id ${outcome.taskId}${stream}`
    );
  return undefined;
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
    .option('--stream', 'stream updates as they arrive (SendStreamingMessage)')
    .addHelpText(
      'after',
      '\nExit codes: 0 the agent answered (a task that completed, or waits for input), 1 the call failed, ' +
        '2 usage, 3 outcome unknown (resend with the same key), 4 task FAILED, 5 task CANCELED, 6 task REJECTED.',
    );
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
      let toldReplay = false;
      const options: SendOptions = {
        ...(key === undefined ? {} : { key }),
        // Said once, even when several attempts of this send were answered as replays.
        onAdmission: (admission) => {
          if (admission !== 'replayed' || toldReplay) return;
          toldReplay = true;
          if (json) io.err(JSON.stringify({ admission }));
          else io.err(`${NAME}: replayed: the agent already had this send and did not run again`);
        },
      };
      const outcome = await sendOnce(client, message, options, o, io);
      const next = json ? undefined : nextStep(url, outcome, o);
      if (next !== undefined) io.err(`${NAME}: ${next}`);
      return outcome.state === undefined ? 0 : exitCodeOfState(outcome.state);
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
