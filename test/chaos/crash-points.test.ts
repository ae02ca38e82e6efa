/**
 * The test-only crash-point hook (ADR 0041): what `A2A_ONCE_TEST_CRASH_AT` accepts, and that an armed point
 * fires exactly on its n-th time and only for its own point. (The hook firing in a real `serve` is what the
 * chaos scenarios watch.)
 */
import { describe, expect, it } from 'vitest';
import {
  CRASH_ARMED,
  crashPointsFor,
  CrashPlanError,
  parseCrashPlan,
  type CrashPlan,
} from '../../src/server/testing/crash-points.js';

describe('A2A_ONCE_TEST_CRASH_AT', () => {
  it('is not armed in an ordinary run', () => {
    expect(process.env.A2A_ONCE_TEST_CRASH_AT).toBeUndefined();
    expect(CRASH_ARMED).toBe(false);
  });

  it.each<[string, CrashPlan]>([
    ['after-claim', { point: 'after-claim', nth: 1, action: 'kill' }],
    ['after-effect:3', { point: 'after-effect', nth: 3, action: 'kill' }],
    ['before-answer:stop', { point: 'before-answer', nth: 1, action: 'stop' }],
    ['before-effect:2:stop', { point: 'before-effect', nth: 2, action: 'stop' }],
  ])('reads %s', (value, plan) => {
    expect(parseCrashPlan(value)).toEqual(plan);
  });

  it.each([
    ['after-clam', /unknown point/],
    ['', /unknown point/],
    ['after-claim:0', /n must be a positive integer/],
    ['after-claim:two', /n must be a positive integer/],
    ['after-claim:1:2', /too many parts/],
    ['after-claim:1:kill', /too many parts/],
  ])('refuses %j, naming the variable and the points', (value, message) => {
    expect(() => parseCrashPlan(value)).toThrow(CrashPlanError);
    expect(() => parseCrashPlan(value)).toThrow(message);
    expect(() => parseCrashPlan(value)).toThrow(
      /A2A_ONCE_TEST_CRASH_AT=.*points: after-claim, before-effect/,
    );
  });

  it('fires once, on the n-th time its own point is reached, with the signal of its action', () => {
    const fired: string[] = [];
    const reach = crashPointsFor(parseCrashPlan('after-effect:2'), (signal, line) =>
      fired.push(`${signal} ${line}`),
    );
    reach('after-effect');
    reach('after-claim');
    reach('before-answer');
    expect(fired).toEqual([]);
    reach('after-effect');
    expect(fired).toEqual([
      'SIGKILL a2a-once test crash point after-effect reached (time 2): sending SIGKILL to itself',
    ]);
    reach('after-effect');
    expect(fired).toHaveLength(1);

    const stops: string[] = [];
    crashPointsFor(parseCrashPlan('before-effect:stop'), (signal) => stops.push(signal))('before-effect');
    expect(stops).toEqual(['SIGSTOP']);
  });
});
