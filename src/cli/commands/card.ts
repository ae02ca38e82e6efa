/**
 * `a2a-once card URL [--json]`: fetch and print an agent's card: interfaces, capabilities, whether it honours
 * idempotency keys, skills.
 *
 * Also home of what the client commands (send, get, tasks, cancel, card) share: how they open a client for a
 * URL and how they report a failure (exit 1; 3 for an outcome unknown, so scripts can tell it apart).
 */
import { A2AClient, OutcomeUnknownError, describeError, honoursKeys } from '../../client/index.js';
import type { AgentCard } from '../../protocol/agent-card.js';
import type { CliIO } from '../io.js';
import { UsageError, parseArgs, parseDuration } from '../args.js';
import type { ParsedArgs } from '../args.js';

/** Options every client command takes. */
export const CLIENT_VALUES = ['timeout', 'binding'] as const;
/** Flags every client command takes. */
export const CLIENT_FLAGS = ['json', 'no-retry'] as const;

/** Exit code of a send whose outcome is unknown. */
export const EXIT_OUTCOME_UNKNOWN = 3;

/** Opens a client for `url`: its card if it has one, else a bare JSON-RPC endpoint. */
export async function openClient(url: string, args: ParsedArgs): Promise<A2AClient> {
  const timeout = args.values.get('timeout');
  const binding = args.values.get('binding');
  if (binding !== undefined && binding !== 'JSONRPC' && binding !== 'HTTP+JSON') {
    throw new UsageError(`--binding must be JSONRPC or HTTP+JSON, not '${binding}'`);
  }
  return A2AClient.connect(url, {
    ...(timeout !== undefined ? { timeoutMs: parseDuration(timeout) } : {}),
    ...(binding !== undefined ? { binding, preferredBindings: [binding] } : {}),
    ...(args.flags.has('no-retry') ? { retry: false as const } : {}),
  });
}

/** Prints a failure and returns the exit code. */
export function reportFailure(err: unknown, io: CliIO, json: boolean): number {
  if (err instanceof UsageError) {
    io.err(`a2a-once: ${err.message}`);
    return 2;
  }
  const code = err instanceof OutcomeUnknownError ? EXIT_OUTCOME_UNKNOWN : 1;
  if (json) {
    const body: Record<string, unknown> = {
      error: err instanceof Error ? err.name : 'Error',
      message: describeError(err),
    };
    if (err instanceof OutcomeUnknownError)
      Object.assign(body, { messageId: err.messageId, keyHash: err.keyHash, taskId: err.taskId });
    io.err(JSON.stringify(body));
  } else {
    io.err(`a2a-once: ${describeError(err)}`);
  }
  return code;
}

/** Parses the command line of a client command, or prints the usage error. */
export function parseClientArgs(
  args: string[],
  io: CliIO,
  extra: { values?: readonly string[]; flags?: readonly string[] },
  positionals: readonly string[],
): ParsedArgs | number {
  try {
    const parsed = parseArgs(args, {
      values: [...CLIENT_VALUES, ...(extra.values ?? [])],
      flags: [...CLIENT_FLAGS, ...(extra.flags ?? [])],
    });
    if (parsed.positionals.length !== positionals.length) {
      throw new UsageError(`expected ${positionals.join(' ')}`);
    }
    return parsed;
  } catch (err) {
    return reportFailure(err, io, false);
  }
}

function describeCard(card: AgentCard): string[] {
  const lines = [`${card.name} ${card.version}: ${card.description}`, 'interfaces:'];
  for (const i of card.supportedInterfaces) {
    lines.push(
      `  ${i.protocolBinding} ${i.protocolVersion}  ${i.url}${i.tenant ? `  tenant=${i.tenant}` : ''}`,
    );
  }
  const c = card.capabilities;
  lines.push(
    `streaming: ${c.streaming ? 'yes' : 'no'}   push: ${c.pushNotifications ? 'yes' : 'no'}   ` +
      `honours idempotency keys: ${honoursKeys(card) ? 'yes' : 'no'}`,
  );
  for (const e of c.extensions ?? []) lines.push(`  extension ${e.uri}${e.required ? ' (required)' : ''}`);
  if (card.skills.length > 0) lines.push('skills:');
  for (const s of card.skills) lines.push(`  ${s.id}: ${s.description}`);
  return lines;
}

/** Runs `a2a-once card`. */
export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseClientArgs(args, io, {}, ['URL']);
  if (typeof parsed === 'number') return parsed;
  const json = parsed.flags.has('json');
  try {
    const client = await openClient(parsed.positionals[0]!, parsed);
    if (client.card === undefined) throw new UsageError('no agent card at that URL');
    if (json) io.out(JSON.stringify(client.card));
    else for (const line of describeCard(client.card)) io.out(line);
    return 0;
  } catch (err) {
    return reportFailure(err, io, json);
  }
}
