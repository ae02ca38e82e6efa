/**
 * `a2a-once demo`: shows, on the embedded default store (SQLite in a temporary directory, no server needed),
 * what a lost answer does to a retried send with and without an idempotency key. It serves the `slow` agent
 * in-process, counts executions with the effects log, and prints what happened.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mintKey, setKey } from '../../idempotency/index.js';
import type { Message } from '../../protocol/model.js';
import { countEffects, createAgent, EffectsLog } from '../agents/index.js';
import { createA2AServer } from '../../server/create-server.js';
import { serveNode } from '../../server/node/index.js';
import { openStore } from '../../store/open-store.js';
import type { CliIO } from '../io.js';
import { runCommand, subcommand } from '../program.js';

interface RpcAnswer {
  result?: { task?: { id: string; status: { state: string } } };
  error?: { code: number; message: string; data?: { reason?: string }[] };
}

async function send(url: string, message: Message, timeoutMs?: number): Promise<RpcAnswer | 'lost'> {
  try {
    const res = await fetch(url + '/', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }),
      ...(timeoutMs !== undefined ? { signal: AbortSignal.timeout(timeoutMs) } : {}),
    });
    return (await res.json()) as RpcAnswer;
  } catch {
    return 'lost';
  }
}

function userMessage(text: string): Message {
  return { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] };
}

/** Runs `a2a-once demo` (it takes no options but `--help`). */
export function run(args: string[], io: CliIO): Promise<number> {
  const command = subcommand(
    io,
    'demo',
    'show what a lost answer does to a retried send, with and without a key',
  );
  return runCommand(command, args, io, () => demo(io));
}

async function demo(io: CliIO): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-once-demo-'));
  const effectsPath = join(dir, 'effects.log');
  const store = await openStore(`sqlite:${join(dir, 'a2a-once.db')}`);
  const agent = createAgent('slow', { effectsLog: new EffectsLog(effectsPath), delayMs: 400 });
  const server = createA2AServer({ agent: agent.executor, card: agent.card, store });
  const http = await serveNode(server.fetch);
  const say = (line = '') => io.out(line);
  try {
    say(`a2a-once demo: a "payment" agent (takes 400 ms) served at ${http.url} on SQLite (${dir})`);
    say('Each send below loses its first answer (the client gives up after 100 ms) and is retried.\n');

    say('1. Without an idempotency key (what every other SDK does):');
    const plain = userMessage('pay invoice #1001');
    const first = await send(http.url, plain, 100);
    say(`   attempt 1: ${first === 'lost' ? 'answer lost (timeout)' : 'answered'}`);
    const again = await send(http.url, plain);
    say(
      `   retry:     task ${again === 'lost' ? '?' : again.result?.task?.id} ${again === 'lost' ? '' : again.result?.task?.status.state}`,
    );
    await new Promise((r) => setTimeout(r, 500));
    const unkeyedRuns = countEffects(effectsPath);
    say(`   the agent ran ${unkeyedRuns} times: invoice #1001 was paid ${unkeyedRuns} times.\n`);

    say('2. With an idempotency key (a2a-once):');
    const keyed = setKey(userMessage('pay invoice #1002'), mintKey());
    const lost = await send(http.url, keyed, 100);
    say(`   attempt 1: ${lost === 'lost' ? 'answer lost (timeout)' : 'answered'}`);
    const retries = await Promise.all([send(http.url, keyed), send(http.url, keyed), send(http.url, keyed)]);
    const ids = new Set(retries.map((r) => (r === 'lost' ? '?' : r.result?.task?.id)));
    const states = retries.map((r) => (r === 'lost' ? '?' : r.result?.task?.status.state));
    say(
      `   3 concurrent retries answered with ${ids.size} task id (${[...ids].join(', ')}), states ${states.join(', ')}`,
    );
    await new Promise((r) => setTimeout(r, 100));
    const keyedRuns = countEffects(effectsPath) - unkeyedRuns;
    say(`   the agent ran ${keyedRuns} time: invoice #1002 was paid once.\n`);

    say('3. The same key reused for a different message is refused, never answered with the wrong task:');
    const reused = await send(http.url, {
      ...keyed,
      messageId: crypto.randomUUID(),
      parts: [{ text: 'pay invoice #9999' }],
    });
    const reason = reused === 'lost' ? 'lost' : reused.error?.data?.[0]?.reason;
    say(`   error ${reused === 'lost' ? '' : reused.error?.code} ${reason}\n`);

    const ok = unkeyedRuns === 2 && keyedRuns === 1 && ids.size === 1 && reason === 'IDEMPOTENCY_KEY_REUSED';
    say(ok ? 'Every send ran once. (npm test runs the full suite.)' : 'UNEXPECTED: see the counts above.');
    return ok ? 0 : 1;
  } finally {
    await http.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
