/**
 * Durable steps, `ctx.step(name, fn)` (docs/semantics.md §4, ADR 0038): `fn` runs at most once to completion per
 * task, its JSON result recorded under the worker's fence; a resumed turn gets the recorded result without
 * running `fn`; each step hands `fn` the side-effect key `<taskId>:<name>` to pass downstream, so a service that
 * deduplicates on it records one effect per key even when `fn` had to run twice. On memory, SQLite, PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { validateKey } from '../../../src/idempotency/index.js';
import { StaleWriterError, type AgentContext } from '../../../src/server/agent-executor.js';
import { localCallContext } from '../../../src/server/call-context.js';
import {
  ANON,
  freshStore,
  gate,
  LEASE_MS,
  replica,
  replicaStore,
  STORE_KINDS,
  stored,
  taskOf,
  until,
  userMessage,
  type Gate,
} from '../leases/harness.js';
import { SigningService } from './signing-service.js';
import { ScriptAgent, sendAndWait, start } from './step-agent.js';

describe.each(STORE_KINDS)('durable steps on %s', (kind) => {
  it('runs fn once with the side-effect key <taskId>:<name> and records its result under the fence', async () => {
    const s = await freshStore(kind);
    const svc = new SigningService();
    const keys: string[] = [];
    const agent = new ScriptAgent(false, async (ctx) => {
      const sig = await ctx.step('step-4', (key) => {
        keys.push(key);
        return svc.sign(key, ctx.userText);
      });
      await ctx.artifact({ parts: [{ text: sig.signatureId }] });
    });
    const server = replica(s, s.store, agent);
    const task = await sendAndWait(server, 'contract 9f2c');
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(keys).toEqual([`${task.id}:step-4`]);
    expect(validateKey(keys[0]!)).toBeUndefined();
    expect(agent.turns[0]!.sideEffectKey('step-4')).toBe(keys[0]);
    const step = await s.store.getStep(ANON, task.id, 'step-4');
    expect(step).toMatchObject({ result: { signatureId: 'sig-1', document: 'contract 9f2c' }, fence: 1 });
    expect(svc.effects.size).toBe(1);
  });

  it('hands a resumed turn the recorded result without running fn again', async () => {
    const s = await freshStore(kind);
    const svc = new SigningService();
    const gates: Gate[] = [gate(), gate()];
    const fnRuns = [0, 0];
    const script = (who: 0 | 1) => async (ctx: AgentContext) => {
      const sig = await ctx.step('sign', (key) => {
        fnRuns[who]!++;
        return svc.sign(key, ctx.userText);
      });
      await gates[who]!.promise;
      const sent = await ctx.step('notify', (key) => svc.sign(key, `notify ${sig.signatureId}`));
      await ctx.artifact({ parts: [{ text: `${sig.signatureId} ${sent.signatureId}` }] });
    };
    const lost = new ScriptAgent(true, script(0));
    const heir = new ScriptAgent(true, script(1));
    const a = replica(s, s.store, lost);
    const taskId = await start(a, lost, 'deed');
    await until(async () => (await s.store.getStep(ANON, taskId, 'sign')) !== undefined);
    const b = replica(s, await replicaStore(s), heir);

    s.clock.advance(LEASE_MS + 1);
    await b.handler.getTask({ id: taskId }, localCallContext());
    await until(() => heir.turns.length === 1);
    expect(heir.turns[0]!.isResumed).toBe(true);
    gates[1]!.open();
    await until(async () => (await stored(s.store, taskId)).task.status.state === 'TASK_STATE_COMPLETED');
    expect(fnRuns).toEqual([1, 0]);
    expect(svc.effects.size).toBe(2);
    const done = await stored(s.store, taskId);
    expect(done.task.artifacts?.[0]?.parts).toEqual([{ text: 'sig-1 sig-2' }]);
    expect((await s.store.getStep(ANON, taskId, 'notify'))?.fence).toBe(2);

    gates[0]!.open(); // the lost worker comes back and is refused
    await until(() => lost.endings.length === 1);
    expect(lost.endings[0]).toBeInstanceOf(StaleWriterError);
    expect((await stored(s.store, taskId)).seq).toBe(done.seq);
  });

  it('runs fn again with the same key when the worker died before recording, and the service keeps one effect', async () => {
    const s = await freshStore(kind);
    const svc = new SigningService();
    const dying = gate(); // the lost worker's fn called the service, then its process "died"
    const lost = new ScriptAgent(true, async (ctx) => {
      await ctx.step('step-4', async (key) => {
        const sig = svc.sign(key, 'deed');
        await dying.promise;
        return sig;
      });
      await ctx.complete();
    });
    const keys: string[] = [];
    const heir = new ScriptAgent(true, async (ctx) => {
      const sig = await ctx.step('step-4', (key) => {
        keys.push(key);
        return svc.sign(key, 'deed');
      });
      await ctx.complete(sig.signatureId);
    });
    const a = replica(s, s.store, lost);
    const taskId = await start(a, lost, 'deed');
    await until(() => svc.calls === 1);
    const b = replica(s, await replicaStore(s), heir);

    s.clock.advance(LEASE_MS + 1);
    await b.handler.recovery.runOnce();
    await until(async () => (await stored(s.store, taskId)).task.status.state === 'TASK_STATE_COMPLETED');
    expect(keys).toEqual([`${taskId}:step-4`]);
    expect(svc.calls).toBe(2);
    expect(svc.effects.size).toBe(1);

    dying.open();
    await until(() => lost.endings.length === 1);
    expect(lost.endings[0]).toBeInstanceOf(StaleWriterError);
    expect((await s.store.getStep(ANON, taskId, 'step-4'))?.fence).toBe(2);
  });

  it('fences a lost worker out before its step runs fn, once another replica took the task', async () => {
    const s = await freshStore(kind);
    const svc = new SigningService();
    const paused = gate();
    const lost = new ScriptAgent(true, async (ctx) => {
      await paused.promise; // an eviction, a long GC pause: the lease lapses meanwhile
      await ctx.step('step-4', (key) => svc.sign(key, 'deed'));
    });
    const a = replica(s, s.store, lost);
    const taskId = await start(a, lost, 'deed');
    const b = replica(s, await replicaStore(s), new ScriptAgent(false, () => Promise.resolve()));

    s.clock.advance(LEASE_MS + 1);
    expect(await b.handler.recovery.runOnce()).toMatchObject({ failed: 1 });
    paused.open();
    await until(() => lost.endings.length === 1);
    expect(lost.endings[0]).toBeInstanceOf(StaleWriterError);
    expect(lost.turns[0]!.signal.aborted).toBe(true);
    expect(svc.calls).toBe(0);
    expect(await s.store.getStep(ANON, taskId, 'step-4')).toBeUndefined();
  });

  it('stops the worker and records nothing when the fence moved while fn ran (a cancel)', async () => {
    const s = await freshStore(kind);
    const inFn = gate();
    const release = gate();
    const agent = new ScriptAgent(false, async (ctx) => {
      await ctx.step('slow-call', async () => {
        inFn.open();
        await release.promise;
        return 'late';
      });
    });
    const server = replica(s, s.store, agent);
    const taskId = await start(server, agent, 'cancel mid-step');
    await inFn.promise;
    await server.handler.cancelTask({ id: taskId }, localCallContext());
    release.open();
    await until(() => agent.endings.length === 1);
    expect(agent.endings[0]).toBeInstanceOf(StaleWriterError);
    expect(agent.turns[0]!.signal.aborted).toBe(true);
    expect(await s.store.getStep(ANON, taskId, 'slow-call')).toBeUndefined();
    expect((await stored(s.store, taskId)).task.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('runs fn once for the same step called again in a turn, in sequence or at once', async () => {
    const s = await freshStore(kind);
    let runs = 0;
    const results: unknown[] = [];
    const agent = new ScriptAgent(false, async (ctx) => {
      const fn = () => Promise.resolve({ n: ++runs });
      results.push(await ctx.step('once', fn));
      results.push(
        ...(await Promise.all([ctx.step('twice', fn), ctx.step('twice', fn), ctx.step('twice', fn)])),
      );
      results.push(await ctx.step('once', fn));
    });
    const server = replica(s, s.store, agent);
    expect((await sendAndWait(server, 'x')).status.state).toBe('TASK_STATE_COMPLETED');
    expect(runs).toBe(2);
    expect(results).toEqual([{ n: 1 }, { n: 2 }, { n: 2 }, { n: 2 }, { n: 1 }]);
  });

  it('does not run a step again in a later turn of the task', async () => {
    const s = await freshStore(kind);
    let runs = 0;
    const agent = new ScriptAgent(false, async (ctx) => {
      const r = await ctx.step('quote', () => ({ price: 10 + ++runs }));
      if (ctx.isContinuation) await ctx.complete(`price ${r.price}`);
      else await ctx.requireInput('accept?');
    });
    const server = replica(s, s.store, agent);
    const first = await sendAndWait(server, 'quote me');
    expect(first.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const second = taskOf(
      await server.handler.sendMessage(
        { message: userMessage('yes', { taskId: first.id }) },
        localCallContext(),
      ),
    );
    expect(second.status.state).toBe('TASK_STATE_COMPLETED');
    expect(runs).toBe(1);
    expect(second.status.message?.parts).toEqual([{ text: 'price 11' }]);
  });

  it('rides out store errors: a failed read or record is retried, a failed lease check is logged and passed', async () => {
    const s = await freshStore(kind);
    // Store errors cannot be produced on demand from a real store: one failure of each call, injected.
    const failOnce = new Set(['getStep', 'renewLease', 'recordStep']);
    const store = new Proxy(s.store, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (failOnce.delete(String(prop))) {
            return Promise.reject(new Error(`connection reset during ${String(prop)} (injected)`));
          }
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const svc = new SigningService();
    const agent = new ScriptAgent(false, async (ctx) => {
      const sig = await ctx.step('step-4', (key) => svc.sign(key, 'deed'));
      await ctx.complete(sig.signatureId);
    });
    const server = replica(s, store, agent);
    const task = await sendAndWait(server, 'flaky store');
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(failOnce.size).toBe(0);
    expect(svc.calls).toBe(1);
    expect((await s.store.getStep(ANON, task.id, 'step-4'))?.result).toEqual(
      svc.effects.get(`${task.id}:step-4`),
    );
    const warnings = server.logger.lines.filter((l) => l.level === 'warn').map((l) => l.message);
    expect(warnings).toEqual([
      'store failed to read a step; retrying',
      'could not confirm the task lease before a step; running it anyway',
      'store failed to record a step; retrying',
    ]);
  });
});
