/**
 * `a2a-once send --key`: the same command run again is a retry (the agent replays its task and runs once), the same
 * key with other text is refused in one line, `--key auto` prints the key it minted, and retries are announced on
 * a terminal only. Against an a2a-once agent, which honours keys (ADR 0043).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageIdForKey } from '../../src/client/index.js';
import { redactedKey } from '../../src/idempotency/index.js';
import { run as send } from '../../src/cli/commands/send.js';
import type { Task } from '../../src/protocol/model.js';
import { FaultProxy, isCall } from '../client/harness/fault-proxy.js';
import { startOnceAgent } from '../helpers/once-agent.js';
import type { OnceAgent } from '../helpers/once-agent.js';
import { capture } from './capture.js';

let agent: OnceAgent;
beforeAll(async () => {
  agent = await startOnceAgent();
});
afterAll(async () => {
  await agent.close();
});

let serial = 0;
/** A fresh key per test, so tests do not replay each other's sends. */
function freshKey(): string {
  return `cli-send-key-test-${process.pid}-${++serial}`;
}

function taskOf(line: string | undefined): Task {
  return (JSON.parse(line!) as { task: Task }).task;
}

describe('a2a-once send --key K, run twice', () => {
  it('replays the first task: same task id, the agent ran once', async () => {
    const key = freshKey();
    const before = agent.runs();
    const first = capture(false);
    expect(await send([agent.url, 'pay invoice 7', '--key', key, '--json'], first)).toBe(0);
    const again = capture(false);
    expect(await send([agent.url, 'pay invoice 7', '--key', key, '--json'], again)).toBe(0);
    expect(taskOf(again.lines[0]).id).toBe(taskOf(first.lines[0]).id);
    expect(agent.runs()).toBe(before + 1);
  });

  it('sends a message id derived from the key, which does not contain the key', async () => {
    const key = freshKey();
    const io = capture(false);
    expect(await send([agent.url, 'derived', '--key', key, '--json'], io)).toBe(0);
    const sent = taskOf(io.lines[0]).history?.find((m) => m.role === 'ROLE_USER');
    expect(sent?.messageId).toBe(messageIdForKey(key));
    expect(sent?.messageId).not.toContain(key);
  });

  it('keeps an explicit --message-id', async () => {
    const key = freshKey();
    const io = capture(false);
    expect(await send([agent.url, 'mine', '--key', key, '--message-id', 'cli-own-id-1', '--json'], io)).toBe(
      0,
    );
    expect(taskOf(io.lines[0]).history?.find((m) => m.role === 'ROLE_USER')?.messageId).toBe('cli-own-id-1');
  });

  it('refuses the same key with other text in one clear line, exit 1, running nothing', async () => {
    const key = freshKey();
    expect(await send([agent.url, 'first text', '--key', key], capture())).toBe(0);
    const before = agent.runs();
    const io = capture();
    expect(await send([agent.url, 'other text', '--key', key], io)).toBe(1);
    expect(io.lines).toEqual([]);
    expect(io.errors).toHaveLength(1);
    expect(io.errors[0]).toMatch(/^a2a-once send: this key was already used for a different message/);
    expect(io.errors[0]).toContain('IDEMPOTENCY_KEY_REUSED');
    expect(io.errors[0]).not.toContain(key);
    expect(agent.runs()).toBe(before);
  });

  it('refuses a malformed key before sending, exit 2, without echoing it', async () => {
    const before = agent.runs();
    const io = capture();
    expect(await send([agent.url, 'x', '--key', 'has space in it, long enough'], io)).toBe(2);
    expect(io.errors[0]).toMatch(/^a2a-once send: --key: .*character/);
    expect(io.errors.join('\n')).not.toContain('has space in it');
    expect(io.errors.at(-1)).toMatch(/^usage: a2a-once send/);
    expect(agent.runs()).toBe(before);
  });
});

describe('a2a-once send --key auto', () => {
  it('prints the key it minted on stderr; sending again with it replays the task', async () => {
    const io = capture();
    expect(await send([agent.url, 'auto keyed', '--key', 'auto'], io)).toBe(0);
    const m = /^a2a-once send: key (\S+) \(run again with --key \1 to retry this send safely\)$/.exec(
      io.errors[0] ?? '',
    );
    expect(m).not.toBeNull();
    const key = m![1]!;
    const taskLine = io.lines[0]!;
    const before = agent.runs();
    const again = capture();
    expect(await send([agent.url, 'auto keyed', '--key', key], again)).toBe(0);
    expect(again.lines[0]).toBe(taskLine);
    expect(agent.runs()).toBe(before);
  });

  it('with --json, prints the key as a JSON object on stderr', async () => {
    const io = capture(false);
    expect(await send([agent.url, 'auto json', '--key', 'auto', '--json'], io)).toBe(0);
    const { key } = JSON.parse(io.errors[0]!) as { key: string };
    const sent = taskOf(io.lines[0]).history?.find((m) => m.role === 'ROLE_USER');
    expect(sent?.messageId).toBe(messageIdForKey(key));
    // The task's history carries the key only as its redacted hash: stdout is no place for it (ADR 0087).
    expect(sent?.metadata?.['a2a-rust.com/idempotency-key']).toBe(redactedKey(key));
    expect(io.lines.join('\n')).not.toContain(key);
  });
});

describe('a2a-once send: retries are announced on a terminal only', () => {
  let proxy: FaultProxy;
  beforeAll(async () => {
    proxy = await FaultProxy.start(agent.url);
  });
  afterAll(async () => {
    await proxy.close();
  });

  /**
   * Sends through the proxy as a bare JSON-RPC endpoint (the card the agent serves would name the agent's own
   * origin, past the proxy), after `fault` hits the first SendMessage. A refusal up front (429) is retried
   * whether or not the peer honours keys.
   */
  async function sendRefusedOnce(args: string[], isTTY: boolean, retryAfter: string) {
    proxy.inject({ kind: 'replace', status: 404 }, (r) => r.path.includes('agent-card'));
    proxy.inject({ kind: 'refuse', status: 429, retryAfter }, isCall('SendMessage'));
    const io = capture(isTTY);
    const code = await send([proxy.url, ...args], io);
    return { code, io, notices: io.errors.filter((l) => l.includes(' attempt ')) };
  }

  it('on a terminal: one line per wait, with the attempt, the wait and the reason', async () => {
    const key = freshKey();
    const { code, io, notices } = await sendRefusedOnce(['through a busy proxy', '--key', key], true, '1');
    expect(code).toBe(0);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(
      /^a2a-once send: attempt 1 of 4 failed \(.*429.*\); trying again in [\d.]+ s \(the agent asked to wait 1 s\)$/,
    );
    expect(notices[0]).not.toContain(key);
    expect(io.lines[0]).toMatch(/^task \S+ {2}completed/);
  });

  it('off a terminal: silent', async () => {
    const { code, notices } = await sendRefusedOnce(['quietly', '--key', freshKey()], false, '0');
    expect(code).toBe(0);
    expect(notices).toEqual([]);
  });

  it('--no-retry: one attempt, the refusal reported in one line, exit 1', async () => {
    const { code, io, notices } = await sendRefusedOnce(['once only', '--no-retry'], true, '0');
    expect(code).toBe(1);
    expect(notices).toEqual([]);
    expect(io.errors).toHaveLength(1);
    expect(io.errors[0]).toMatch(/^a2a-once send: .*429/);
  });
});
