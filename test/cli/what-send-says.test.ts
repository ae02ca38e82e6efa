/**
 * What `a2a-once send`, `get` and `tasks` say, against a real a2a-once server: a replayed send says so (the
 * server's `A2A-Once-Admission`, ADR 0086); a task that ended FAILED, CANCELED or REJECTED exits 4, 5 or 6; a task
 * waiting for input prints the command that answers it; a key is printed only when this run minted it, and JSON
 * output carries no key in clear (docs/guides/idempotency.md "Where a key shows").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run as get } from '../../src/cli/commands/get.js';
import { run as send } from '../../src/cli/commands/send.js';
import { run as tasks } from '../../src/cli/commands/tasks.js';
import { EXIT_TASK_CANCELED, EXIT_TASK_FAILED, EXIT_TASK_REJECTED } from '../../src/cli/client-command.js';
import { IDEMPOTENCY_METADATA_KEY, keyHash } from '../../src/idempotency/index.js';
import { createA2AServer } from '../../src/server/create-server.js';
import type { A2AServer } from '../../src/server/create-server.js';
import { serveNode } from '../../src/server/node/index.js';
import type { NodeServerHandle } from '../../src/server/node/index.js';
import { MemoryTaskStore } from '../../src/store/memory/index.js';
import { localCallContext } from '../../src/server/call-context.js';
import { capture } from './capture.js';
import { closeNode } from '../helpers/close-node.js';

let server: A2AServer;
let http: NodeServerHandle;
let runs = 0;

beforeAll(async () => {
  server = createA2AServer({
    card: { name: 'moody', description: 'ends its tasks every way', capabilities: { streaming: true } },
    store: new MemoryTaskStore(),
    agent: {
      async execute(ctx) {
        runs++;
        const text = ctx.userText;
        if (text === 'fail') return ctx.fail('it did not work');
        if (text === 'reject') return ctx.reject('not this');
        if (text === 'cancel') return ctx.status('TASK_STATE_CANCELED', 'gave up');
        if (text === 'ask') return ctx.requireInput('which colour?');
        await ctx.artifact({ name: 'echo', parts: [{ text }] });
        await ctx.complete();
      },
    },
  });
  http = await serveNode(server.fetch, { host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await closeNode(http);
  await server.close();
});

describe('a replayed send', () => {
  it('says the agent did not run again, once, and only on the replay', async () => {
    const key = 'cli-replay-notice-0001';
    const first = capture();
    expect(await send([http.url, 'paint it', '--key', key], first)).toBe(0);
    expect(first.errors.join('\n')).not.toMatch(/replayed/);
    const before = runs;
    const again = capture();
    expect(await send([http.url, 'paint it', '--key', key], again)).toBe(0);
    expect(again.errors.filter((l) => l.includes('replayed'))).toEqual([
      'a2a-once send: replayed: the agent already had this send and did not run again',
    ]);
    expect(runs).toBe(before);
  });

  it('says so as JSON on stderr with --json, and streamed', async () => {
    const key = 'cli-replay-notice-json-01';
    expect(await send([http.url, 'stream it', '--key', key, '--stream', '--json'], capture(false))).toBe(0);
    const io = capture(false);
    expect(await send([http.url, 'stream it', '--key', key, '--stream', '--json'], io)).toBe(0);
    expect(io.errors).toContain(JSON.stringify({ admission: 'replayed' }));
  });
});

describe('exit codes of a task that did not succeed', () => {
  it.each([
    ['fail', EXIT_TASK_FAILED, 4],
    ['cancel', EXIT_TASK_CANCELED, 5],
    ['reject', EXIT_TASK_REJECTED, 6],
  ] as const)('%s exits %i', async (text, code, literal) => {
    expect(code).toBe(literal); // the documented numbers
    expect(await send([http.url, text], capture())).toBe(code);
    expect(await send([http.url, text, '--stream'], capture())).toBe(code);
    expect(await send([http.url, text, '--json'], capture(false))).toBe(code);
  });

  it('a completed task and one waiting for input exit 0', async () => {
    expect(await send([http.url, 'fine'], capture())).toBe(0);
    expect(await send([http.url, 'ask'], capture())).toBe(0);
  });
});

describe('a task waiting for input', () => {
  it('prints the command that answers it, and that command continues the task', async () => {
    const io = capture();
    expect(await send([http.url, 'ask'], io)).toBe(0);
    const hint = io.errors.find((l) => l.includes('needs your input'));
    const m = /to answer: a2a-once send (\S+) "<your answer>" --task-id (\S+)$/.exec(hint ?? '');
    expect(m?.[1]).toBe(http.url);
    const answer = capture();
    expect(await send([http.url, 'blue', '--task-id', m![2]!], answer)).toBe(0);
    expect(answer.lines[0]).toMatch(new RegExp(`^task ${m![2]} {2}completed`));
  });

  it('says nothing of the kind in JSON mode', async () => {
    const io = capture(false);
    expect(await send([http.url, 'ask', '--json'], io)).toBe(0);
    expect(io.errors.join('\n')).not.toMatch(/needs your input/);
  });
});

describe('keys in output', () => {
  it('--json output of send, get and tasks carries the key only as its redacted hash', async () => {
    const key = 'my-own-secret-key-0001';
    const sent = capture(false);
    expect(await send([http.url, 'keep it', '--key', key, '--json'], sent)).toBe(0);
    const taskId = (JSON.parse(sent.lines[0]!) as { task: { id: string } }).task.id;
    const got = capture(false);
    expect(await get([http.url, taskId, '--json'], got)).toBe(0);
    const listed = capture(false);
    expect(await tasks([http.url, '--json'], listed)).toBe(0);
    for (const out of [sent, got, listed]) {
      const text = [...out.lines, ...out.errors].join('\n');
      expect(text).not.toContain(key);
      expect(text).toContain(`"${IDEMPOTENCY_METADATA_KEY}":"[redacted #${keyHash(key)}]"`);
    }
    // What the server holds is unchanged: the task's history still carries the caller's own key.
    const stored = await server.handler.getTask({ id: taskId }, localCallContext());
    expect(stored.history?.[0]?.metadata?.[IDEMPOTENCY_METADATA_KEY]).toBe(key);
  });

  it('a key the run minted is printed; the caller own key is not repeated back', async () => {
    const minted = capture();
    expect(await send([http.url, 'mint one', '--key', 'auto'], minted)).toBe(0);
    expect(minted.errors.some((l) => /key ik1\.\S+ \(run again with --key ik1\.\S+ to retry/.test(l))).toBe(
      true,
    );
    const own = capture();
    const key = 'another-own-key-00001';
    expect(await send([http.url, 'mine', '--key', key], own)).toBe(0);
    expect([...own.lines, ...own.errors].join('\n')).not.toContain(key);
  });
});
