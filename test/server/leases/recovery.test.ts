/**
 * Recovery of tasks whose worker was lost (docs/semantics.md §4, ADR 0037): a SUBMITTED or WORKING task whose
 * lease lapsed is taken over by a fenced commit (fence + 1) and then resumed (a resumable agent, run again with
 * `ctx.isResumed`) or ended FAILED with a status message saying the worker was lost. Whatever the lost worker
 * writes afterwards is refused and its signal aborts. On memory, SQLite and PostgreSQL, with replicas as servers
 * in this process sharing the store and the store's ManualClock moved past the lease.
 */
import { describe, expect, it } from 'vitest';
import { setKey } from '../../../src/idempotency/index.js';
import type { StreamResponse } from '../../../src/protocol/model.js';
import { StaleWriterError } from '../../../src/server/agent-executor.js';
import { localCallContext } from '../../../src/server/call-context.js';
import {
  freshStore,
  GatedAgent,
  LEASE_MS,
  replica,
  replicaStore,
  startTurn,
  STORE_KINDS,
  stored,
  taskOf,
  textOf,
  until,
  userMessage,
} from './harness.js';

const KEY = 'recovery-test-key-000000001';

describe.each(STORE_KINDS)('recovery of lost workers on %s', (kind) => {
  it('ends a lost task FAILED, with a status message saying why, when a GetTask touches it', async () => {
    const s = await freshStore(kind);
    const lostAgent = new GatedAgent(false);
    const a = replica(s, s.store, lostAgent);
    const { task, turn } = await startTurn(a, lostAgent, userMessage('sign the contract'));
    const b = replica(s, await replicaStore(s), new GatedAgent(false));

    s.clock.advance(LEASE_MS + 1); // replica A is gone: nobody renewed its lease
    const seen = await b.handler.getTask({ id: task.id }, localCallContext());
    expect(seen.status.state).toBe('TASK_STATE_FAILED');
    expect(textOf(seen.status.message)).toMatch(/worker running it was lost/);
    const record = await stored(s.store, task.id);
    expect(record.fence).toBe(2);
    expect(record.lease).toBeUndefined();
    // A takeover a request made is no sweep's: its own line is at warn.
    expect(
      b.logger.lines.filter((l) => l.message === 'recovered a task whose worker was lost'),
    ).toMatchObject([{ level: 'warn', fields: { taskId: task.id, outcome: 'failed', fence: 2 } }]);

    // The lost worker comes back: its next write is refused and its signal aborts.
    lostAgent.gate(0).open();
    await until(() => lostAgent.endings.length === 1);
    expect(lostAgent.endings[0]).toBeInstanceOf(StaleWriterError);
    expect(turn.ctx.signal.aborted).toBe(true);
    const after = await stored(s.store, task.id);
    expect(after.task.status.state).toBe('TASK_STATE_FAILED');
    expect(after.task.artifacts).toBeUndefined();
    expect(after.seq).toBe(record.seq);
  });

  it('runs a resumable agent again under the new token: same task, same message, isResumed', async () => {
    const s = await freshStore(kind);
    const lostAgent = new GatedAgent(true);
    const a = replica(s, s.store, lostAgent);
    const message = userMessage('render the report');
    const { task, turn } = await startTurn(a, lostAgent, message);
    expect(turn.isResumed).toBe(false);
    const heir = new GatedAgent(true);
    const b = replica(s, await replicaStore(s), heir);

    s.clock.advance(LEASE_MS + 1);
    const seen = await b.handler.getTask({ id: task.id }, localCallContext());
    expect(seen.status.state).toBe('TASK_STATE_WORKING');
    expect(textOf(seen.status.message)).toMatch(/resumed/);
    const resumed = await heir.nextTurn(0);
    expect(resumed).toMatchObject({
      taskId: task.id,
      messageId: message.messageId,
      text: 'render the report',
      isResumed: true,
      isContinuation: false,
    });
    const record = await stored(s.store, task.id);
    expect(record.fence).toBe(2);
    expect(record.lease?.owner).toMatch(/#2$/);

    heir.gate(0).open();
    await until(async () => (await stored(s.store, task.id)).task.status.state === 'TASK_STATE_COMPLETED');
    lostAgent.gate(0).open();
    await until(() => lostAgent.endings.length === 1);
    expect(lostAgent.endings[0]).toBeInstanceOf(StaleWriterError);
    expect(turn.ctx.signal.aborted).toBe(true);
    const done = await stored(s.store, task.id);
    expect(done.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(done.task.artifacts?.map((x) => x.parts)).toEqual([[{ text: 'done: render the report' }]]);
    expect(done.lease).toBeUndefined();
    expect(lostAgent.turns).toHaveLength(1);
    expect(heir.turns).toHaveLength(1);
  });

  it('answers a keyed retry of a lost task with the final task, not the stale snapshot', async () => {
    const s = await freshStore(kind);
    const lostAgent = new GatedAgent(true);
    const a = replica(s, s.store, lostAgent);
    const message = setKey(userMessage('charge card 42'), KEY);
    const { task } = await startTurn(a, lostAgent, message);
    const heir = new GatedAgent(true);
    heir.gate(0).open(); // the resumed turn finishes at once
    const b = replica(s, await replicaStore(s), heir);

    s.clock.advance(LEASE_MS + 1);
    const retried = taskOf(await b.handler.sendMessage({ message }, localCallContext()));
    expect(retried.id).toBe(task.id);
    expect(retried.status.state).toBe('TASK_STATE_COMPLETED');
    expect(heir.turns.map((t) => t.isResumed)).toEqual([true]);
    lostAgent.gate(0).open();
  });

  it('answers a keyed retry of a lost task of a non-resumable agent with the FAILED task', async () => {
    const s = await freshStore(kind);
    const lostAgent = new GatedAgent(false);
    const a = replica(s, s.store, lostAgent);
    const message = setKey(userMessage('ship order 7'), KEY);
    const { task } = await startTurn(a, lostAgent, message);
    const b = replica(s, await replicaStore(s), new GatedAgent(false));

    s.clock.advance(LEASE_MS + 1);
    const retried = taskOf(await b.handler.sendMessage({ message }, localCallContext()));
    expect(retried.id).toBe(task.id);
    expect(retried.status.state).toBe('TASK_STATE_FAILED');
    lostAgent.gate(0).open();
  });

  it('recovers a lost task that a subscription touches, and streams the resumed turn to its end', async () => {
    const s = await freshStore(kind);
    const lostAgent = new GatedAgent(true);
    const a = replica(s, s.store, lostAgent);
    const { task } = await startTurn(a, lostAgent, userMessage('stream me'));
    const heir = new GatedAgent(true);
    heir.gate(0).open();
    const b = replica(s, await replicaStore(s), heir);

    s.clock.advance(LEASE_MS + 1);
    const events: StreamResponse[] = [];
    for await (const ev of await b.handler.subscribeToTask({ id: task.id }, localCallContext()))
      events.push(ev);
    const first = events[0];
    expect(first && 'task' in first ? first.task.status.state : undefined).toBe('TASK_STATE_WORKING');
    const last = events.at(-1);
    expect(last && 'statusUpdate' in last ? last.statusUpdate.status.state : undefined).toBe(
      'TASK_STATE_COMPLETED',
    );
    lostAgent.gate(0).open();
  });

  it('recovers at start-up and reports how many tasks it resumed and failed', async () => {
    const s = await freshStore(kind);
    const lostAgent = new GatedAgent(false);
    const a = replica(s, s.store, lostAgent);
    const first = await startTurn(a, lostAgent, userMessage('one'));
    const second = await startTurn(a, lostAgent, userMessage('two'));

    s.clock.advance(LEASE_MS + 1);
    const b = replica(s, await replicaStore(s), new GatedAgent(false), { recovery: {} });
    // Both lapsed and were taken over: none is left leased to another worker.
    expect(await b.recovery?.startup).toEqual({
      resumed: 0,
      failed: 2,
      renewed: 0,
      skipped: 0,
      deferred: 0,
      stillLeased: { held: 0 },
    });
    for (const t of [first.task, second.task])
      expect((await stored(s.store, t.id)).task.status.state).toBe('TASK_STATE_FAILED');
    // One line per task at info, which names it; one warn line for the sweep (ADR 0131).
    const lines = b.logger.lines.filter((l) => l.message === 'recovered a task whose worker was lost');
    expect(lines.map((l) => l.fields?.outcome).sort()).toEqual(['failed', 'failed']);
    expect(lines.map((l) => l.level)).toEqual(['info', 'info']);
    expect(lines.map((l) => l.fields?.taskId).sort()).toEqual([first.task.id, second.task.id].sort());
    const warned = b.logger.lines.filter((l) => l.level === 'warn');
    expect(String(warned[0]?.fields?.failedTaskIds).split(',').sort()).toEqual(
      [first.task.id, second.task.id].sort(),
    );
    expect(warned).toEqual([
      {
        level: 'warn',
        message: 'recovered tasks whose worker was lost',
        fields: {
          tasks: 2,
          resumed: 0,
          failed: 2,
          renewed: 0,
          skipped: 0,
          failedTaskIds: String(warned[0]?.fields?.failedTaskIds),
        },
      },
    ]);
    lostAgent.gate(0).open();
    lostAgent.gate(1).open();
  });

  it('recovers periodically, without anything touching the task', async () => {
    const s = await freshStore(kind);
    const lostAgent = new GatedAgent(true);
    const a = replica(s, s.store, lostAgent);
    const { task } = await startTurn(a, lostAgent, userMessage('periodic'));
    const heir = new GatedAgent(true);
    heir.gate(0).open();
    const b = replica(s, await replicaStore(s), heir, { recovery: { intervalMs: 10 } });
    // Replica a still holds the task's lease: start-up leaves it, and says when that lease lapses.
    expect(await b.recovery?.startup).toEqual({
      resumed: 0,
      failed: 0,
      renewed: 0,
      skipped: 0,
      deferred: 0,
      stillLeased: { held: 1, firstLapseInMs: LEASE_MS },
    });

    s.clock.advance(LEASE_MS + 1);
    await until(async () => (await stored(s.store, task.id)).task.status.state === 'TASK_STATE_COMPLETED');
    expect(heir.turns.map((t) => t.isResumed)).toEqual([true]);
    lostAgent.gate(0).open();
  });

  it('lets exactly one of many racing recoverers take a lost task over', async () => {
    const s = await freshStore(kind);
    const lostAgent = new GatedAgent(true);
    const a = replica(s, s.store, lostAgent);
    const { task } = await startTurn(a, lostAgent, userMessage('race'));
    const heirs = Array.from({ length: 4 }, () => new GatedAgent(true));
    const replicas = [];
    for (const heir of heirs) replicas.push(replica(s, await replicaStore(s), heir));

    s.clock.advance(LEASE_MS + 1);
    // Every replica sweeps and touches the task at once, several times over.
    const reports = await Promise.all(
      replicas.flatMap((r) => [
        r.handler.recovery.runOnce(),
        r.handler.recovery.runOnce(),
        r.handler.getTask({ id: task.id }, localCallContext()).then(() => undefined),
      ]),
    );
    const resumed = reports.reduce((n, r) => n + (r?.resumed ?? 0), 0);
    const turns = heirs.flatMap((h) => h.turns);
    expect(turns).toHaveLength(1);
    expect(resumed).toBeLessThanOrEqual(1); // a touch that won does not show in a report
    expect((await stored(s.store, task.id)).fence).toBe(2);
    for (const h of heirs) h.gate(0).open();
    lostAgent.gate(0).open();
    await until(async () => (await stored(s.store, task.id)).task.status.state === 'TASK_STATE_COMPLETED');
    expect(heirs.flatMap((h) => h.turns)).toHaveLength(1);
  });

  it("renews its own live worker's lapsed lease instead of taking the task over", async () => {
    const s = await freshStore(kind);
    const agent = new GatedAgent(false);
    const a = replica(s, s.store, agent);
    const { task, turn } = await startTurn(a, agent, userMessage('still here'));

    s.clock.advance(LEASE_MS + 1); // a long pause: this process's own lease lapsed, its worker did not die
    const seen = await a.handler.getTask({ id: task.id }, localCallContext());
    expect(seen.status.state).toBe('TASK_STATE_WORKING');
    const record = await stored(s.store, task.id);
    expect(record.fence).toBe(1);
    expect(record.lease?.expiresAt).toBe(s.clock.now() + LEASE_MS);
    expect(turn.ctx.signal.aborted).toBe(false);
    expect(await a.handler.recovery.runOnce()).toEqual({
      resumed: 0,
      failed: 0,
      renewed: 0,
      skipped: 0,
      deferred: 0,
    });

    agent.gate(0).open();
    await until(async () => (await stored(s.store, task.id)).task.status.state === 'TASK_STATE_COMPLETED');
  });

  it('fails a task once it has been resumed maxResumes times (a task that keeps killing its worker)', async () => {
    const s = await freshStore(kind);
    const agents = [new GatedAgent(true), new GatedAgent(true), new GatedAgent(true)];
    const first = replica(s, s.store, agents[0]!);
    const { task } = await startTurn(first, agents[0]!, userMessage('poison'));
    const second = replica(s, await replicaStore(s), agents[1]!, { recovery: { maxResumes: 1 } });
    const third = replica(s, await replicaStore(s), agents[2]!, { recovery: { maxResumes: 1 } });
    await second.recovery?.startup;
    await third.recovery?.startup;

    s.clock.advance(LEASE_MS + 1);
    expect(await second.handler.recovery.runOnce()).toMatchObject({ resumed: 1 });
    await agents[1]!.nextTurn(0);
    // The resumed turn's first report is stored (a takeover racing it would just be refused and tried later).
    await until(
      async () => textOf((await stored(s.store, task.id)).task.status.message) === 'working on poison',
    );
    s.clock.advance(LEASE_MS + 1); // the resumed worker is lost too
    expect(await third.handler.recovery.runOnce()).toMatchObject({ resumed: 0, failed: 1 });
    const record = await stored(s.store, task.id);
    expect(record.task.status.state).toBe('TASK_STATE_FAILED');
    expect(textOf(record.task.status.message)).toMatch(/resumed 1 time/);
    expect(agents[2]!.turns).toHaveLength(0);
    for (const a of agents) a.gate(0).open();
  });
});
