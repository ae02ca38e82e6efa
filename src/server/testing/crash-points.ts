/**
 * Test-only crash points (ADR 0041). The chaos tests (test/chaos/) prove that a send runs once and an agent's
 * effect happens once when a `serve` process dies at the worst moments; they must reach those moments exactly,
 * never by timing luck. The server calls `reachCrashPoint(point)` at each named point, guarded by the constant
 * `CRASH_ARMED`, so an ordinary run pays one constant check and nothing else.
 *
 * `A2A_ONCE_TEST_CRASH_AT=<point>[:<n>][:stop]`, read once when this module loads: the n-th time (default the
 * first) the process reaches `<point>`, it writes one line on stderr and sends itself SIGKILL (a crash: nothing
 * runs after it), or SIGSTOP with `:stop` (a paused VM: it carries on where it was when sent SIGCONT).
 *
 * Points:
 * - `after-claim`: a new task and its idempotency key are durably created, before the agent starts.
 * - `before-effect`: a durable step found no recorded result and is about to record its attempt and run `fn`.
 * - `attempt-started`: a durable step's attempt is recorded as started (ADR 0121), before `fn` runs.
 * - `after-effect`: a durable step's `fn` returned, before its result is recorded.
 * - `before-answer`: a SendMessage has its answer (the task), before the response is written.
 *
 * A value that names no point is refused when the module loads, so a misspelt test setting cannot quietly run
 * a test without its crash.
 */
import { writeSync } from 'node:fs';

/** The environment variable that arms a crash point. Its name says TEST so no deployment sets it by accident. */
export const CRASH_AT_ENV = 'A2A_ONCE_TEST_CRASH_AT';

/** The named crash points, in the order a send reaches them. */
export const CRASH_POINTS = [
  'after-claim',
  'before-effect',
  'attempt-started',
  'after-effect',
  'before-answer',
] as const;

/** One of `CRASH_POINTS`. */
export type CrashPoint = (typeof CRASH_POINTS)[number];

/** What the armed point does: die at once (SIGKILL), or freeze until SIGCONT (SIGSTOP). */
export type CrashAction = 'kill' | 'stop';

/** A parsed `A2A_ONCE_TEST_CRASH_AT`. */
export interface CrashPlan {
  readonly point: CrashPoint;
  /** Fires the n-th time the point is reached (1 = the first). */
  readonly nth: number;
  readonly action: CrashAction;
}

/** A value of `A2A_ONCE_TEST_CRASH_AT` that is not `<point>[:<n>][:stop]`. */
export class CrashPlanError extends Error {
  constructor(value: string, why: string) {
    super(
      `${CRASH_AT_ENV}=${JSON.stringify(value)} is not <point>[:<n>][:stop] (${why}); ` +
        `points: ${CRASH_POINTS.join(', ')}`,
    );
    this.name = 'CrashPlanError';
  }
}

function isCrashPoint(text: string): text is CrashPoint {
  return (CRASH_POINTS as readonly string[]).includes(text);
}

/** Parses `<point>[:<n>][:stop]`. @throws CrashPlanError */
export function parseCrashPlan(value: string): CrashPlan {
  const parts = value.split(':');
  const [point, ...rest] = parts;
  if (point === undefined || !isCrashPoint(point)) throw new CrashPlanError(value, 'unknown point');
  let action: CrashAction = 'kill';
  if (rest[rest.length - 1] === 'stop') {
    action = 'stop';
    rest.pop();
  }
  if (rest.length > 1) throw new CrashPlanError(value, 'too many parts');
  const count = rest[0];
  if (count === undefined) return { point, nth: 1, action };
  if (!/^[1-9][0-9]{0,5}$/.test(count)) throw new CrashPlanError(value, `n must be a positive integer`);
  return { point, nth: Number(count), action };
}

/**
 * The crash points of a plan: `reach(point)` counts the point and fires on the n-th time. `fire` is given the
 * signal to send to this process (a parameter so the counting can be tested without killing the test runner).
 */
export function crashPointsFor(
  plan: CrashPlan,
  fire: (signal: 'SIGKILL' | 'SIGSTOP', line: string) => void,
): (point: CrashPoint) => void {
  let reached = 0;
  return (point) => {
    if (point !== plan.point || ++reached !== plan.nth) return;
    const signal = plan.action === 'kill' ? 'SIGKILL' : 'SIGSTOP';
    fire(signal, `a2a-once test crash point ${point} reached (time ${reached}): sending ${signal} to itself`);
  };
}

/** Writes the line synchronously (so it is out before the signal lands), then signals this process. */
function signalSelf(signal: 'SIGKILL' | 'SIGSTOP', line: string): void {
  writeSync(2, line + '\n');
  process.kill(process.pid, signal);
}

// Read through globalThis: a runtime without `process` (a worker) simply has no crash point armed.
const RAW = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[
  CRASH_AT_ENV
];
const REACH = RAW === undefined || RAW === '' ? undefined : crashPointsFor(parseCrashPlan(RAW), signalSelf);

/** True only when `A2A_ONCE_TEST_CRASH_AT` armed a point: call sites check it before calling. */
export const CRASH_ARMED: boolean = REACH !== undefined;

/** Marks that this process reached `point`; fires the armed plan when this is its n-th time. */
export function reachCrashPoint(point: CrashPoint): void {
  REACH?.(point);
}
