/**
 * `a2a-once card URL [--json]`: fetch and print an agent's card: interfaces, capabilities, whether it honours
 * idempotency keys, skills.
 */
import { honoursKeys } from '../../client/index.js';
import type { AgentCard } from '../../protocol/agent-card.js';
import type { CliIO } from '../io.js';
import { clientCommand, openClient, reportFailure } from '../client-command.js';
import type { ClientOptions } from '../client-command.js';
import { runCommand } from '../program.js';

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
export function run(args: string[], io: CliIO): Promise<number> {
  const command = clientCommand(io, 'card', "print an agent's card");
  return runCommand(command, args, io, async () => {
    const [url] = command.processedArgs as [string];
    const o = command.opts<ClientOptions>();
    const json = o.json === true;
    try {
      const client = await openClient(url, o, io, 'a2a-once card');
      if (client.card === undefined) throw new Error(`no agent card at ${url}`);
      if (json) io.out(JSON.stringify(client.card));
      else for (const line of describeCard(client.card)) io.out(line);
      return 0;
    } catch (err) {
      return reportFailure(err, io, json, 'a2a-once card');
    }
  });
}
