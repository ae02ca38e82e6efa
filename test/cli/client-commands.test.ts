/**
 * The client subcommands (send, get, tasks, cancel, card) against an `@a2a-js/sdk` agent on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.js';
import { run as cancel } from '../../src/cli/commands/cancel.js';
import { run as card } from '../../src/cli/commands/card.js';
import { run as get } from '../../src/cli/commands/get.js';
import { run as send } from '../../src/cli/commands/send.js';
import { run as tasks } from '../../src/cli/commands/tasks.js';
import { startJsAgent } from '../client/harness/a2a-js-server.js';
import type { JsAgent } from '../client/harness/a2a-js-server.js';
import { FaultProxy, isCall } from '../client/harness/fault-proxy.js';

interface Captured extends CliIO {
  readonly lines: string[];
  readonly errors: string[];
}

function capture(isTTY = true): Captured {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, isTTY, out: (l) => void lines.push(l), err: (l) => void errors.push(l) };
}

// The commands' own `run` (what `main` dispatches to): vite cannot transform main.ts (a shebang before the
// dynamic-import helper it injects), so the dispatch itself is left to the built CLI.
const COMMANDS: Record<string, (args: string[], io: CliIO) => Promise<number>> = {
  send,
  get,
  tasks,
  cancel,
  card,
};
function main([name, ...rest]: string[], io: CliIO): Promise<number> {
  return COMMANDS[name!]!(rest, io);
}

let agent: JsAgent;
beforeAll(async () => {
  agent = await startJsAgent();
});
afterAll(async () => {
  await agent.close();
});

describe('a2a-once card', () => {
  it('prints interfaces, capabilities and whether keys are honoured', async () => {
    const io = capture();
    expect(await main(['card', agent.url], io)).toBe(0);
    expect(io.lines[0]).toContain('js-counter');
    expect(io.lines.some((l) => l.includes(`JSONRPC 1.0  ${agent.jsonRpcUrl}`))).toBe(true);
    expect(io.lines.some((l) => l.includes('honours idempotency keys: no'))).toBe(true);
  });

  it('prints the card as JSON with --json', async () => {
    const io = capture(false);
    expect(await main(['card', agent.url, '--json'], io)).toBe(0);
    expect((JSON.parse(io.lines[0]!) as { name: string }).name).toBe('js-counter');
  });
});

describe('a2a-once send', () => {
  it('prints the task state and its artifacts', async () => {
    const io = capture();
    const before = agent.executions.length;
    expect(await main(['send', agent.url, 'hello cli'], io)).toBe(0);
    expect(io.lines[0]).toMatch(/^task \S+ {2}completed/);
    expect(io.lines).toContain('  artifact echo: hello cli');
    expect(agent.executions.length).toBe(before + 1);
  });

  it('streams updates as they arrive with --stream, and --json prints one event per line', async () => {
    const io = capture();
    expect(await main(['send', agent.url, 'slow:2', '--stream'], io)).toBe(0);
    expect(io.lines.filter((l) => l.startsWith('artifact') || l.startsWith('+artifact'))).toEqual([
      'artifact out: chunk0',
      '+artifact out: chunk1',
    ]);
    expect(io.lines.at(-1)).toBe('status completed');
    const json = capture(false);
    expect(await main(['send', agent.url, 'slow:1', '--stream', '--json'], json)).toBe(0);
    const events = json.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(Object.keys(events[0]!)).toEqual(['task']);
  });

  it('uses the given key and message id', async () => {
    const io = capture(false);
    const key = 'cli-test-key-0000000001';
    expect(
      await main(['send', agent.url, 'keyed', '--key', key, '--message-id', 'cli-m-1', '--json'], io),
    ).toBe(0);
    const last = agent.executions.at(-1)!;
    expect(last.messageId).toBe('cli-m-1');
    expect(last.metadata?.['a2a-rust.com/idempotency-key']).toBe(key);
  });

  it('continues a task with --task-id', async () => {
    const io = capture(false);
    expect(await main(['send', agent.url, 'ask', '--json'], io)).toBe(0);
    const taskId = (JSON.parse(io.lines[0]!) as { task: { id: string } }).task.id;
    const next = capture(false);
    expect(await main(['send', agent.url, 'and more', '--task-id', taskId, '--json'], next)).toBe(0);
    expect((JSON.parse(next.lines[0]!) as { task: { id: string } }).task.id).toBe(taskId);
  });

  it('exits 3 with outcome unknown when the answer is lost, and does not resend', async () => {
    const proxy = await FaultProxy.start(agent.url);
    try {
      proxy.inject({ kind: 'drop-response' }, isCall('SendMessage'));
      const io = capture();
      expect(await main(['send', proxy.via(agent.jsonRpcUrl), 'lost'], io)).toBe(3);
      expect(io.errors.join('\n')).toMatch(/outcome unknown/);
      expect(proxy.count(isCall('SendMessage'))).toBe(1);
    } finally {
      await proxy.close();
    }
  });

  it('exits 2 on a bad command line', async () => {
    const io = capture();
    expect(await main(['send', agent.url], io)).toBe(2);
    expect(await main(['send', agent.url, 'x', '--bogus'], io)).toBe(2);
  });
});

describe('a2a-once get, tasks, cancel', () => {
  it('gets a task, lists it, cancels a running one', async () => {
    const sent = capture(false);
    expect(await main(['send', agent.url, 'for get', '--json'], sent)).toBe(0);
    const id = (JSON.parse(sent.lines[0]!) as { task: { id: string } }).task.id;
    const got = capture();
    expect(await main(['get', agent.url, id], got)).toBe(0);
    expect(got.lines[0]).toContain(`task ${id}  completed`);
    const list = capture();
    expect(await main(['tasks', agent.url, '--page-size', '100'], list)).toBe(0);
    expect(list.lines.some((l) => l.startsWith(`${id}  completed`))).toBe(true);
    expect(list.lines.at(-1)).toMatch(/task\(s\)/);
    const filtered = capture(false);
    expect(await main(['tasks', agent.url, '--status', 'completed', '--json'], filtered)).toBe(0);
    const page = JSON.parse(filtered.lines[0]!) as { tasks: { status: { state: string } }[] };
    expect(page.tasks.every((t) => t.status.state === 'TASK_STATE_COMPLETED')).toBe(true);

    const running = capture(false);
    expect(await main(['send', agent.url, 'ask', '--json'], running)).toBe(0);
    const askId = (JSON.parse(running.lines[0]!) as { task: { id: string } }).task.id;
    const canceled = capture();
    expect(await main(['cancel', agent.url, askId], canceled)).toBe(0);
    expect(canceled.lines[0]).toContain('canceled');
  });

  it('reports an unknown task by its A2A reason, exit 1', async () => {
    const io = capture();
    expect(await main(['get', agent.url, 'no-such-task'], io)).toBe(1);
    expect(io.errors[0]).toContain('TASK_NOT_FOUND');
  });
});
