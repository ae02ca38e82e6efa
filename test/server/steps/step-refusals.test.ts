/**
 * What a durable step refuses (ADR 0038): a result over the size limit or not JSON data, a bad name, a step after
 * the task finished; each throws a clear error into the agent and records nothing. A step that returns nothing
 * records null. Names map to side-effect keys that pass the idempotency key rules (docs/semantics.md §1).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateKey } from '../../../src/idempotency/index.js';
import { newUuid } from '../../../src/protocol/uuid.js';
import { StepError } from '../../../src/server/agent-executor.js';
import {
  checkStepName,
  MAX_STEP_NAME_LENGTH,
  sideEffectKeyOf,
} from '../../../src/server/runner/durable-step.js';
import { ANON, freshStore, replica, STORE_KINDS, until } from '../leases/harness.js';
import { caught, ScriptAgent, sendAndWait } from './step-agent.js';

describe.each(STORE_KINDS)('step refusals on %s', (kind) => {
  it('refuses a result over the size limit with a clear StepError, recording nothing', async () => {
    const s = await freshStore(kind);
    const errors: unknown[] = [];
    const agent = new ScriptAgent(false, async (ctx) => {
      errors.push(await caught(ctx.step('big', () => 'x'.repeat(2000))));
      // Within the limit it goes through; the agent carries on after a refusal.
      await ctx.step('small', () => 'x'.repeat(100));
    });
    const server = replica(s, s.store, agent, { maxStepResultBytes: 1024 });
    const task = await sendAndWait(server, 'sizes');
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(errors[0]).toBeInstanceOf(StepError);
    expect(errors[0]).toMatchObject({ code: 'STEP_RESULT_TOO_LARGE' });
    expect((errors[0] as Error).message).toMatch(/2002 bytes of JSON, over the limit of 1024/);
    expect(await s.store.getStep(ANON, task.id, 'big')).toBeUndefined();
    expect(await s.store.getStep(ANON, task.id, 'small')).toBeDefined();
  });

  it('refuses by default a result over 256 KiB of JSON', async () => {
    const s = await freshStore(kind);
    const errors: unknown[] = [];
    const agent = new ScriptAgent(false, async (ctx) => {
      errors.push(await caught(ctx.step('big', () => ({ blob: 'é'.repeat(140 * 1024) }))));
    });
    const task = await sendAndWait(replica(s, s.store, agent), 'default size');
    expect(errors[0]).toMatchObject({ code: 'STEP_RESULT_TOO_LARGE' });
    expect(await s.store.getStep(ANON, task.id, 'big')).toBeUndefined();
  });

  it('refuses a result that is not JSON data with a clear StepError, recording nothing', async () => {
    const s = await freshStore(kind);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const values: [string, unknown][] = [
      ['date', new Date(0)],
      ['bigint', 10n],
      ['nan', { n: Number.NaN }],
      ['function', () => 1],
      ['cycle', cyclic],
      ['map', new Map()],
    ];
    const errors: unknown[] = [];
    const agent = new ScriptAgent(false, async (ctx) => {
      for (const [name, value] of values) errors.push(await caught(ctx.step(name, () => value)));
    });
    const task = await sendAndWait(replica(s, s.store, agent), 'not json');
    expect(errors).toHaveLength(values.length);
    for (const err of errors) {
      expect(err).toBeInstanceOf(StepError);
      expect(err).toMatchObject({ code: 'STEP_RESULT_NOT_JSON' });
    }
    expect((errors[2] as Error).message).toMatch(/at n/);
    for (const [name] of values) expect(await s.store.getStep(ANON, task.id, name)).toBeUndefined();
  });

  it('refuses a bad step name before fn runs', async () => {
    const s = await freshStore(kind);
    const names: unknown[] = ['', 'a'.repeat(MAX_STEP_NAME_LENGTH + 1), 'has space', 'ümlaut', 'a/b', 42];
    const errors: unknown[] = [];
    let runs = 0;
    const agent = new ScriptAgent(false, async (ctx) => {
      for (const name of names) {
        errors.push(await caught(ctx.step(name as string, () => ++runs)));
        try {
          ctx.sideEffectKey(name as string);
          errors.push(undefined);
        } catch (err) {
          errors.push(err);
        }
      }
    });
    await sendAndWait(replica(s, s.store, agent), 'names');
    expect(runs).toBe(0);
    expect(errors).toHaveLength(names.length * 2);
    for (const err of errors) expect(err).toMatchObject({ name: 'StepError', code: 'STEP_NAME_INVALID' });
  });

  it('records a step that returns nothing as null', async () => {
    const s = await freshStore(kind);
    const seen: unknown[] = [];
    const agent = new ScriptAgent(false, async (ctx) => {
      seen.push(await ctx.step('fire-and-forget', () => undefined));
      seen.push(await ctx.step('fire-and-forget', () => 'not run'));
    });
    const task = await sendAndWait(replica(s, s.store, agent), 'void');
    expect(seen).toEqual([null, null]);
    expect((await s.store.getStep(ANON, task.id, 'fire-and-forget'))?.result).toBeNull();
  });

  it('refuses a step once the task is finished', async () => {
    const s = await freshStore(kind);
    const errors: unknown[] = [];
    const agent = new ScriptAgent(false, async (ctx) => {
      await ctx.complete('done');
      errors.push(await caught(ctx.step('after', () => 1)));
    });
    const task = await sendAndWait(replica(s, s.store, agent), 'late step');
    // The answer may go out as soon as COMPLETED is stored, before the agent goes on to its step.
    await until(() => agent.endings.length > 0);
    expect((errors[0] as Error).message).toMatch(/already finished/);
    expect(await s.store.getStep(ANON, task.id, 'after')).toBeUndefined();
  });
});

describe('step names and side-effect keys', () => {
  const KEY_CHARS = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.:'];

  it('turns every valid name into a valid idempotency key with a UUID task id', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...KEY_CHARS), { minLength: 1, maxLength: MAX_STEP_NAME_LENGTH }),
        (chars) => {
          const name = chars.join('');
          expect(checkStepName(name)).toBe(name);
          const taskId = newUuid();
          const key = sideEffectKeyOf(taskId, name);
          expect(key).toBe(`${taskId}:${name}`);
          expect(validateKey(key)).toBeUndefined();
        },
      ),
    );
  });

  it('refuses every name with a character outside the key set', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 0, maxLength: 20 }),
        fc.string({ minLength: 1, maxLength: 1 }).filter((c) => !KEY_CHARS.includes(c)),
        fc.string({ minLength: 0, maxLength: 20 }),
        (before, bad, after) => {
          expect(() => checkStepName(before + bad + after)).toThrow(StepError);
        },
      ),
    );
  });
});
