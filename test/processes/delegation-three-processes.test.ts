/**
 * Delegation across three real `a2a-once serve` processes (docs/semantics.md §4 "Delegation", ADR 0039,
 * ADR 0040): two parent replicas of the `delegating` agent sharing one SQLite file, and a child (the same agent
 * in leaf mode) behind a link that can lose answers. Executions are counted from outside, in the effects logs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELEGATE_TO_ENV, readEffects } from '../../src/cli/agents/index.js';
import type { Task } from '../../src/protocol/model.js';
import { DELEGATION_METADATA_KEY } from '../../src/server/delegation/index.js';
import { startLink, type DelegationLink } from './delegation-link.js';
import { cliBuilt, startServe, type ServeProcess } from './serve-process.js';
import { rpc, sendForTask, userMessage } from './wire.js';

/** Longer than the child's lease (`CHILD_LEASE_MS`, 5 s): every child outlives it only if its parent renews. */
const CHILD_WORK_MS = 7_000;

describe.skipIf(!cliBuilt)('delegation across three processes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-once-delegation-'));
  const parentLog = join(dir, 'parent-effects.log');
  const childLog = join(dir, 'child-effects.log');
  let child: ServeProcess;
  let link: DelegationLink;
  let a: ServeProcess;
  let b: ServeProcess;

  /** A parent replica, told where its child is through the environment it starts with. */
  function startParent(): Promise<ServeProcess> {
    process.env[DELEGATE_TO_ENV] = link.url;
    try {
      // The process is spawned synchronously, with the environment as it is now.
      return startServe(
        [
          '--agent',
          'delegating',
          '--store',
          `sqlite:${join(dir, 'parents.db')}`,
          '--lease',
          '2s',
          '--effects-log',
          parentLog,
        ],
        dir,
      );
    } finally {
      delete process.env[DELEGATE_TO_ENV];
    }
  }

  beforeAll(async () => {
    delete process.env[DELEGATE_TO_ENV];
    child = await startServe(
      [
        '--agent',
        'delegating',
        '--store',
        'memory',
        '--delay-ms',
        String(CHILD_WORK_MS),
        '--effects-log',
        childLog,
      ],
      dir,
    );
    link = await startLink(child.url);
    a = await startParent();
    b = await startParent();
  }, 30_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop(), child?.stop()]);
    await link?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const childRuns = (text: string) => readEffects(childLog).filter((e) => e.text === text);
  const sendsOf = (text: string) => link.sends.filter((s) => s.includes(JSON.stringify(text)));
  const keyIn = (body: string) => /ik1\.[0-9a-z]+\.[A-Za-z0-9_-]{22}/.exec(body)?.[0];

  async function getTask(url: string, id: string): Promise<Task> {
    const body = (await rpc(url, 'GetTask', { id })) as { result?: Task; error?: unknown };
    if (!body.result) throw new Error(`GetTask ${id}: ${JSON.stringify(body.error)}`);
    return body.result;
  }

  async function until(check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > end) throw new Error('condition not met in time');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  const statusText = (t: Task) =>
    (t.status.message?.parts ?? []).map((p) => ('text' in p ? p.text : '')).join('');

  it('a link that drops the first answer: the parent resends with the same key, one child', async () => {
    const text = 'flaky link';
    link.fail('drop', 1);
    const parent = await sendForTask(a.url, userMessage(text));
    expect(parent.status.state).toBe('TASK_STATE_COMPLETED');
    const runs = childRuns(text);
    expect(runs).toHaveLength(1);
    expect(parent.artifacts?.[0]?.parts).toEqual([{ text: `child ${runs[0]!.taskId} completed` }]);
    const sends = sendsOf(text);
    expect(sends).toHaveLength(2);
    expect(keyIn(sends[0]!)).toBeDefined();
    expect(keyIn(sends[1]!)).toBe(keyIn(sends[0]!));
  }, 30_000);

  it('cancelling the parent cancels the child', async () => {
    const text = 'cancel me';
    const parent = await sendForTask(a.url, userMessage(text), { returnImmediately: true });
    await until(() => childRuns(text).length === 1);
    const childTaskId = childRuns(text)[0]!.taskId;
    await rpc(a.url, 'CancelTask', { id: parent.id });
    await until(async () => (await getTask(child.url, childTaskId)).status.state === 'TASK_STATE_CANCELED');
    // Cancelled by the parent's CancelTask, not by its lease lapsing later.
    expect(statusText(await getTask(child.url, childTaskId))).not.toMatch(/renewing/);
    expect((await getTask(a.url, parent.id)).status.state).toBe('TASK_STATE_CANCELED');
  }, 30_000);

  it('a budget that runs out fails the child with the budget message, and the parent with it', async () => {
    const text = 'over budget';
    const deadline = new Date(Date.now() + 1_000).toISOString();
    const parent = await sendForTask(
      a.url,
      userMessage(text, { metadata: { [DELEGATION_METADATA_KEY]: { deadline } } }),
    );
    const expected = `The delegation budget ran out: its deadline ${deadline} passed before the task finished`;
    expect(parent.status.state).toBe('TASK_STATE_FAILED');
    // The parent carries the same deadline, so it fails for its own budget or for its child's, whichever the
    // runner sees first: either way it says the budget ran out.
    expect([expected, `child failed: ${expected}`]).toContain(statusText(parent));
    const childId = childRuns(text)[0]!.taskId;
    // The parent's answer can go out before its failure's cancel reaches the child: wait for the child to settle.
    await until(async () =>
      ['TASK_STATE_FAILED', 'TASK_STATE_CANCELED'].includes((await getTask(child.url, childId)).status.state),
    );
    const childTask = await getTask(child.url, childId);
    // Same deadline on both: the child either ran out itself, or was cancelled by its parent failing first
    // (a failed parent cancels its unsettled children). It never runs on past the budget.
    if (childTask.status.state === 'TASK_STATE_FAILED') expect(statusText(childTask)).toBe(expected);
    else expect(childTask.status.state).toBe('TASK_STATE_CANCELED');
  }, 30_000);

  it('a parent killed after recording the key is resumed by its replica: same key, same child, one execution', async () => {
    const text = 'resume me';
    link.fail('hold', 1);
    const parent = await sendForTask(a.url, userMessage(text), { returnImmediately: true });
    await until(() => sendsOf(text).length === 1 && childRuns(text).length === 1);
    await a.kill9();
    await until(
      async () => (await getTask(b.url, parent.id)).status.state === 'TASK_STATE_COMPLETED',
      25_000,
    );
    const runs = childRuns(text);
    expect(runs).toHaveLength(1);
    const sends = sendsOf(text);
    expect(sends).toHaveLength(2);
    expect(keyIn(sends[1]!)).toBe(keyIn(sends[0]!));
    const done = await getTask(b.url, parent.id);
    expect(done.artifacts?.[0]?.parts).toEqual([{ text: `child ${runs[0]!.taskId} completed` }]);
    expect(readEffects(parentLog).filter((e) => e.taskId === parent.id)).toHaveLength(1);
  }, 40_000);

  it('a child whose parents all died stops being renewed and cancels itself when its lease lapses', async () => {
    const text = 'orphan me';
    await sendForTask(b.url, userMessage(text), { returnImmediately: true });
    await until(() => childRuns(text).length === 1);
    const childTaskId = childRuns(text)[0]!.taskId;
    await b.kill9();
    const orphan = await getTask(child.url, childTaskId);
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(orphan.status.state);
    await until(
      async () => (await getTask(child.url, childTaskId)).status.state === 'TASK_STATE_CANCELED',
      15_000,
    );
    const ended = await getTask(child.url, childTaskId);
    expect(statusText(ended)).toBe('Cancelled: the parent stopped renewing the delegation lease');
  }, 30_000);
});
