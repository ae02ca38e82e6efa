/**
 * Durable step attempts, retries, timeouts, signals and at-most-once steps (docs/semantics.md §4 "Durable
 * steps", ADR 0120 to 0123), on every store: attempt numbers recorded before `fn` runs and counted on across a
 * crash; a worker killed at every point of a step's life (before the attempt record, during `fn`, after `fn` and
 * before its result record) under both semantics; retries within the policy, stopped at once for a stopped
 * worker; zod schemas on the result and on replay.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { StaleWriterError, StepError } from '../../../src/server/agent-executor.js';
import {
  StepInterruptedError,
  StepTimeoutError,
  type StepAttempt,
  type StepSemantics,
} from '../../../src/server/step-options.js';
import { caught } from './step-agent.js';
import { eventually, hangingStore, never, newTask, SCOPE, StepWorker, takeOver } from './step-host.js';
import { STEP_STORE_KINDS, stepStore } from './step-stores.js';

const SEMANTICS: readonly StepSemantics[] = ['at-least-once', 'at-most-once'];

describe.each(STEP_STORE_KINDS)('step attempts on %s', (kind) => {
  it('tells fn its attempt and a signal, records attempt 1 before fn runs, and its result after', async () => {
    const { store } = await stepStore(kind);
    await newTask(store, 't1');
    const w = new StepWorker(store, 't1', 1);
    const seen: StepAttempt[] = [];
    const result = await w.steps.run('charge', async (key, a) => {
      seen.push(a);
      // The attempt is in the store before fn runs.
      expect(await store.getStepAttempt(SCOPE, 't1', 'charge')).toMatchObject({
        attempt: 1,
        state: 'started',
      });
      return { id: `ch:${key}` };
    });
    expect(result).toEqual({ id: 'ch:t1:charge' });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ name: 'charge', sideEffectKey: 't1:charge', attempt: 1 });
    expect(seen[0]!.signal.aborted).toBe(false);
    expect((await store.getStep(SCOPE, 't1', 'charge'))?.result).toEqual(result);
    // A replay runs nothing.
    const again = new StepWorker(store, 't1', 1);
    expect(await again.steps.run('charge', () => ({ id: 'other' }))).toEqual(result);
  });

  it('retries a failing attempt per its policy, counting attempts, with a log line per failure', async () => {
    const { store } = await stepStore(kind);
    await newTask(store, 't1');
    const w = new StepWorker(store, 't1', 1);
    const attempts: number[] = [];
    const r = await w.steps.run(
      'charge',
      (_key, a) => {
        attempts.push(a.attempt);
        if (a.attempt < 3) throw new Error(`flaky ${a.attempt}`);
        return 'paid';
      },
      { retry: { maxAttempts: 5, initialDelayMs: 1, maxDelayMs: 2 } },
    );
    expect(r).toBe('paid');
    expect(attempts).toEqual([1, 2, 3]);
    expect(await store.getStepAttempt(SCOPE, 't1', 'charge')).toMatchObject({ attempt: 3, state: 'started' });
    const retries = w.lines('a step attempt failed; retrying');
    expect(retries).toHaveLength(2);
    expect(retries[0]).toMatchObject({ level: 'warn', fields: { taskId: 't1', step: 'charge', attempt: 1 } });
    // Never the side-effect key in a log line: it is the downstream's idempotency key.
    expect(JSON.stringify(w.logger.lines)).not.toContain('t1:charge');
    expect(w.lines('a step attempt started')).toHaveLength(3);
  });

  it('gives up after maxAttempts with the last error, and a later call is STEP_ATTEMPTS_EXHAUSTED', async () => {
    const { store } = await stepStore(kind);
    await newTask(store, 't1');
    const w = new StepWorker(store, 't1', 1);
    let calls = 0;
    const policy = { retry: { maxAttempts: 2, initialDelayMs: 0 } };
    const err = await caught(
      w.steps.run(
        'charge',
        () => {
          calls++;
          throw new Error(`declined ${calls}`);
        },
        policy,
      ),
    );
    expect(err).toMatchObject({ message: 'declined 2' });
    expect(calls).toBe(2);
    expect(await store.getStepAttempt(SCOPE, 't1', 'charge')).toMatchObject({ attempt: 2, state: 'failed' });
    // Durable: a resumed worker's call makes no third attempt.
    const heir = new StepWorker(store, 't1', await takeOver(store, 't1'));
    const exhausted = await caught(heir.steps.run('charge', () => calls++, policy));
    expect(exhausted).toBeInstanceOf(StepError);
    expect(exhausted).toMatchObject({ code: 'STEP_ATTEMPTS_EXHAUSTED' });
    expect(calls).toBe(2);
  });

  it('retries only what retryIf accepts; with no policy a later call tries once more, counting on', async () => {
    const { store } = await stepStore(kind);
    await newTask(store, 't1');
    const w = new StepWorker(store, 't1', 1);
    const attempts: number[] = [];
    const permanent = new Error('card declined');
    const fail = (_k: string, a: StepAttempt) => {
      attempts.push(a.attempt);
      throw permanent;
    };
    const retry = { maxAttempts: 5, initialDelayMs: 0, retryIf: (e: unknown) => e !== permanent };
    expect(await caught(w.steps.run('charge', fail, { retry }))).toBe(permanent);
    expect(attempts).toEqual([1]);
    // No policy: one attempt per call, as before policies; the number counts on.
    expect(await caught(w.steps.run('charge', fail))).toBe(permanent);
    expect(attempts).toEqual([1, 2]);
  });

  it('times an attempt out: its signal aborts with StepTimeoutError and the next attempt runs', async () => {
    const { store } = await stepStore(kind);
    await newTask(store, 't1');
    const w = new StepWorker(store, 't1', 1);
    const signals: AbortSignal[] = [];
    const r = await w.steps.run(
      'slow',
      (_k, a) => {
        signals.push(a.signal);
        // The first attempt ignores its signal and never ends: the timeout fails it anyway.
        return a.attempt === 1 ? never<string>() : 'fast';
      },
      { timeoutMs: 20, retry: { maxAttempts: 2, initialDelayMs: 0 } },
    );
    expect(r).toBe('fast');
    expect(signals[0]!.aborted).toBe(true);
    expect(signals[0]!.reason).toBeInstanceOf(StepTimeoutError);
    expect(signals[1]!.aborted).toBe(false);
  });

  it('an at-most-once attempt that timed out is interrupted, not failed: no retry, StepInterruptedError', async () => {
    const { store } = await stepStore(kind);
    await newTask(store, 't1');
    const w = new StepWorker(store, 't1', 1);
    let calls = 0;
    const options = {
      timeoutMs: 10,
      semantics: 'at-most-once' as const,
      retry: { maxAttempts: 3, initialDelayMs: 0 },
    };
    const err = await caught(w.steps.run('transfer', () => (calls++, never()), options));
    expect(err).toBeInstanceOf(StepInterruptedError);
    expect(err).toMatchObject({
      stepName: 'transfer',
      sideEffectKey: 't1:transfer',
      attempt: 1,
      interruption: 'timeout',
    });
    expect(calls).toBe(1);
    expect(await caught(w.steps.run('transfer', () => calls++, options))).toMatchObject({
      name: 'StepInterruptedError',
      attempt: 1,
    });
    expect(calls).toBe(1);
  });

  describe.each(SEMANTICS)('a worker killed mid-step, %s', (semantics) => {
    const options = { semantics };

    it('before the attempt record: the heir runs attempt 1', async () => {
      const { store } = await stepStore(kind);
      await newTask(store, 't1');
      const frozen = hangingStore(store, (m) => m === 'writeStepAttempt');
      const lost = new StepWorker(frozen, 't1', 1);
      let calls = 0;
      void lost.steps.run('pay', () => calls++, options);
      await new Promise((r) => setTimeout(r, 20));
      expect(calls).toBe(0);
      const heir = new StepWorker(store, 't1', await takeOver(store, 't1'));
      const attempts: number[] = [];
      expect(await heir.steps.run('pay', (_k, a) => (attempts.push(a.attempt), 'ok'), options)).toBe('ok');
      expect(attempts).toEqual([1]);
    });

    it(`during fn: the heir ${semantics === 'at-least-once' ? 'runs attempt 2 with the same key' : 'throws StepInterruptedError, fn not run'}`, async () => {
      const { store } = await stepStore(kind);
      await newTask(store, 't1');
      const lost = new StepWorker(store, 't1', 1);
      const keys: string[] = [];
      void lost.steps.run('pay', (k) => (keys.push(k), never()), options);
      await eventually(() => keys.length === 1);
      const heir = new StepWorker(store, 't1', await takeOver(store, 't1'));
      const attempts: number[] = [];
      const r = heir.steps.run('pay', (k, a) => (keys.push(k), attempts.push(a.attempt), 'ok'), options);
      if (semantics === 'at-least-once') {
        expect(await r).toBe('ok');
        expect(attempts).toEqual([2]);
        expect(keys).toEqual(['t1:pay', 't1:pay']);
      } else {
        const err = await caught(r);
        expect(err).toBeInstanceOf(StepInterruptedError);
        expect(err).toMatchObject({
          stepName: 'pay',
          sideEffectKey: 't1:pay',
          attempt: 1,
          interruption: 'crash',
        });
        expect(keys).toEqual(['t1:pay']);
        expect(heir.lines('found an interrupted attempt')).toHaveLength(1);
      }
    });

    it(`after fn, before the result record: the heir ${semantics === 'at-least-once' ? 'runs attempt 2' : 'throws StepInterruptedError'}`, async () => {
      const { store } = await stepStore(kind);
      await newTask(store, 't1');
      const frozen = hangingStore(store, (m) => m === 'recordStep');
      const lost = new StepWorker(frozen, 't1', 1);
      let calls = 0;
      void lost.steps.run('pay', () => (calls++, 'done once'), options);
      await eventually(() => calls === 1);
      const heir = new StepWorker(store, 't1', await takeOver(store, 't1'));
      const r = heir.steps.run('pay', (_k, a) => (calls++, `done at ${a.attempt}`), options);
      if (semantics === 'at-least-once') {
        expect(await r).toBe('done at 2');
        expect(calls).toBe(2);
      } else {
        expect(await caught(r)).toMatchObject({ name: 'StepInterruptedError', attempt: 1 });
        expect(calls).toBe(1);
      }
    });
  });

  it('counts attempt numbers on across two crashes and a failure', async () => {
    const { store } = await stepStore(kind);
    await newTask(store, 't1');
    const seen: number[] = [];
    const a = new StepWorker(store, 't1', 1);
    void a.steps.run('pay', (_k, at) => (seen.push(at.attempt), never()));
    await eventually(() => seen.length === 1);
    const b = new StepWorker(store, 't1', await takeOver(store, 't1'));
    void b.steps.run('pay', (_k, at) => (seen.push(at.attempt), never()));
    await eventually(() => seen.length === 2);
    const c = new StepWorker(store, 't1', await takeOver(store, 't1'));
    const r = await c.steps.run(
      'pay',
      (_k, at) => {
        seen.push(at.attempt);
        if (at.attempt === 3) throw new Error('flaky');
        return at.attempt;
      },
      { retry: { maxAttempts: 4, initialDelayMs: 0 } },
    );
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(r).toBe(4);
  });

  it('a fenced-out worker stops retrying at once: no further fn call', async () => {
    const { store } = await stepStore(kind);
    await newTask(store, 't1');
    const w = new StepWorker(store, 't1', 1);
    let calls = 0;
    const run = w.steps.run(
      'pay',
      () => {
        calls++;
        throw new Error('flaky');
      },
      { retry: { maxAttempts: 10, initialDelayMs: 50, jitter: 'none' } },
    );
    await eventually(() => calls === 1);
    await takeOver(store, 't1');
    expect(await caught(run)).toBeInstanceOf(StaleWriterError);
    expect(calls).toBe(1);
  });

  it('a worker stopped while it waits to retry (cancel, lease lost) makes no further attempt', async () => {
    const { store } = await stepStore(kind);
    await newTask(store, 't1');
    const w = new StepWorker(store, 't1', 1);
    let calls = 0;
    const run = w.steps.run(
      'pay',
      () => {
        calls++;
        throw new Error('flaky');
      },
      { retry: { maxAttempts: 10, initialDelayMs: 10_000, jitter: 'none' } },
    );
    await eventually(() => calls === 1);
    w.stop();
    expect(await caught(run)).toBeInstanceOf(StaleWriterError);
    expect(calls).toBe(1);
  });

  it('a retry delay from a third of the lease on renews the lease first; if it cannot, the task is failed', async () => {
    const { store } = await stepStore(kind);
    await newTask(store, 't1');
    const w = new StepWorker(store, 't1', 1, { leaseMs: 90 });
    let calls = 0;
    const fail = () => {
      calls++;
      if (calls < 2) throw new Error('flaky');
      return 'ok';
    };
    const before = w.renewals;
    expect(
      await w.steps.run('pay', fail, { retry: { maxAttempts: 2, initialDelayMs: 30, jitter: 'none' } }),
    ).toBe('ok');
    // One renewal before each attempt (confirming the hold), and one for the wait.
    expect(w.renewals - before).toBe(3);

    const broken = new StepWorker(store, 't1', 1, { leaseMs: 90 });
    let renewals = 0;
    broken.renew = () =>
      ++renewals > 1 ? Promise.reject(new Error('store away')) : Promise.resolve('renewed');
    const err = await caught(
      broken.steps.run(
        'refund',
        () => {
          throw new Error('flaky');
        },
        { retry: { maxAttempts: 3, initialDelayMs: 60, jitter: 'none' } },
      ),
    );
    expect(err).toMatchObject({ name: 'StepError', code: 'STEP_RETRY_ABANDONED' });
    expect(broken.failures).toEqual([expect.stringContaining('Step refund gave up retrying')]);
  });

  it('checks the result with its zod schema before recording it, and the recorded one on replay', async () => {
    const { store } = await stepStore(kind);
    await newTask(store, 't1');
    const w = new StepWorker(store, 't1', 1);
    const Receipt = z.object({ id: z.string(), cents: z.number().int() });
    const bad = await caught(
      w.steps.run('charge', () => ({ id: 'ch_1', cents: 'ten' }), { schema: Receipt as never }),
    );
    expect(bad).toMatchObject({ name: 'StepError', code: 'STEP_RESULT_INVALID' });
    expect((bad as Error).message).toContain('cents');
    expect(await store.getStep(SCOPE, 't1', 'charge')).toBeUndefined();
    // A result recorded by an older version of the agent, of another shape: a clear error, not a silent cast.
    await store.recordStep(SCOPE, 't1', { name: 'old', fence: 1, result: { id: 7 } });
    const replay = await caught(w.steps.run('old', () => ({ id: 'x', cents: 1 }), { schema: Receipt }));
    expect(replay).toMatchObject({ name: 'StepError', code: 'STEP_RESULT_INVALID' });
    expect(w.lines('does not match its schema')).toHaveLength(1);
    const ok = await w.steps.run('fresh', () => ({ id: 'ch_2', cents: 250 }), { schema: Receipt });
    expect(ok).toEqual({ id: 'ch_2', cents: 250 });
  });

  it('refuses options it cannot honour before anything runs', async () => {
    const { store } = await stepStore(kind);
    await newTask(store, 't1');
    const w = new StepWorker(store, 't1', 1);
    let calls = 0;
    for (const options of [
      { retry: { maxAttempts: 0 } },
      { retry: { maxAttempts: 2, factor: 0.5 } },
      { timeoutMs: -1 },
      { semantics: 'exactly-once' },
      { retry: { maxAttempts: 2, jitter: 'half' } },
    ]) {
      const err = await caught(w.steps.run('s', () => calls++, options as never));
      expect(err).toMatchObject({ name: 'StepError', code: 'STEP_OPTIONS_INVALID' });
    }
    expect(calls).toBe(0);
    expect(await store.getStepAttempt(SCOPE, 't1', 's')).toBeUndefined();
  });
});
