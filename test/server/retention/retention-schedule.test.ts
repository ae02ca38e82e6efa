/**
 * Retention on a schedule inside the server (docs/semantics.md §6, ADR 0035): SQL stores expire keys and end
 * abandoned interrupted tasks without an operator, and among replicas sharing a store one leads at a time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../../src/cli/agents/index.js';
import { createA2AServer, type A2AServer } from '../../../src/server/index.js';
import type { ServerLogger } from '../../../src/server/observability/logger.js';
import { RetentionSchedule } from '../../../src/server/retention/retention-schedule.js';
import type { PurgeReport } from '../../../src/store/retention.js';
import { openStoreUnderTest, STORE_KINDS, type StoreUnderTest } from './stores.js';
import { rpc } from '../http/fixtures.js';

const DAY = 86_400_000;
const KEY = 'retention-schedule-key-0001';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function fresh(kind: (typeof STORE_KINDS)[number]): Promise<StoreUnderTest> {
  const s = await openStoreUnderTest(kind);
  cleanups.push(() => s.cleanup());
  return s;
}

/** A logger that keeps what it is given. */
function recordingLogger(): ServerLogger & { lines: { level: string; message: string }[] } {
  const lines: { level: string; message: string }[] = [];
  const add = (level: string) => (message: string) => void lines.push({ level, message });
  return { lines, debug: add('debug'), info: add('info'), warn: add('warn'), error: add('error') };
}

/** A server on `s.store` whose schedule runs every few ms; resolves runs through `nextRun`. */
function scheduledServer(s: StoreUnderTest, agent: 'echo' | 'ask') {
  const runs: PurgeReport[] = [];
  let waiting: ((r: PurgeReport) => void) | undefined;
  const a = createAgent(agent);
  const server: A2AServer = createA2AServer({
    agent: a.executor,
    card: a.card,
    store: s.store,
    clock: s.clock,
    retention: {
      intervalMs: 5,
      onRun: (r) => {
        runs.push(r);
        waiting?.(r);
      },
    },
  });
  // The whole server, not only its retention: its recovery and push schedules would outlive the store.
  cleanups.push(() => server.close());
  /** The report of the next run that starts after this call. */
  const nextRun = () => new Promise<PurgeReport>((resolve) => (waiting = resolve));
  return { server, runs, nextRun };
}

function keyedSend(text: string, messageId: string, extra: Record<string, unknown> = {}) {
  return {
    message: {
      messageId,
      role: 'ROLE_USER',
      parts: [{ text }],
      metadata: { 'a2a-rust.com/idempotency-key': KEY },
      ...extra,
    },
  };
}

describe.each(STORE_KINDS)('retention schedule on %s', (kind) => {
  it('expires a key into a tombstone with nobody running sweep, so a late retry is refused, not run again', async () => {
    const s = await fresh(kind);
    const { server, nextRun } = scheduledServer(s, 'echo');
    const first = await rpc(server, 'SendMessage', keyedSend('pay invoice #7', 'm-1'));
    expect(first.error).toBeUndefined();
    // Day 8: the task is past the finished-task age (7 d), the key past its TTL (24 h).
    s.clock.advance(8 * DAY);
    await nextRun();
    await nextRun(); // a second run must not delete the fresh tombstone (its age counts from now)
    const late = await rpc(server, 'SendMessage', keyedSend('pay invoice #7', 'm-1'));
    expect(late.error).toMatchObject({ code: -32602, data: [{ reason: 'IDEMPOTENCY_KEY_EXPIRED' }] });
  });

  it('ends an INPUT_REQUIRED task nobody continued after 30 days, and refuses its late continuation', async () => {
    const s = await fresh(kind);
    const { server, runs, nextRun } = scheduledServer(s, 'ask');
    const sent = await rpc(server, 'SendMessage', keyedSend('book a table', 'm-ask'));
    const task = (sent.result as { task: { id: string; status: { state: string } } }).task;
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');

    const abandoned = () => runs.reduce((n, r) => n + r.abandoned, 0);
    s.clock.advance(29 * DAY);
    await nextRun();
    await nextRun(); // the second run certainly started after the clock moved
    expect(abandoned()).toBe(0);

    s.clock.advance(2 * DAY);
    await expect.poll(abandoned, { timeout: 5000 }).toBe(1);
    const got = await rpc(server, 'GetTask', { id: task.id });
    const ended = got.result as { status: { state: string; message?: { parts: { text?: string }[] } } };
    expect(ended.status.state).toBe('TASK_STATE_CANCELED');
    expect(ended.status.message?.parts[0]?.text).toMatch(/nobody continued it/);

    const late = await rpc(server, 'SendMessage', {
      message: { messageId: 'm-answer', role: 'ROLE_USER', parts: [{ text: 'Ada' }], taskId: task.id },
    });
    expect(late.error).toMatchObject({ code: -32004 });
  });

  it('lets one replica lead at a time; another takes over once the lease lapses', async () => {
    const s = await fresh(kind);
    const peer = await s.replica();
    const logger = recordingLogger();
    const a = new RetentionSchedule(s.store, logger, { intervalMs: 1000, holder: 'replica-a' });
    const b = new RetentionSchedule(peer ?? s.store, logger, { intervalMs: 1000, holder: 'replica-b' });
    expect(await a.runOnce()).toBeDefined();
    if (!peer) {
      // One process owns a memory store: there is nobody to exclude.
      expect(await b.runOnce()).toBeDefined();
      return;
    }
    expect(await b.runOnce()).toBeUndefined();
    s.clock.advance(2_000); // within the lease (three intervals): A still leads
    expect(await b.runOnce()).toBeUndefined();
    expect(await a.runOnce()).toBeDefined(); // A renews
    s.clock.advance(2_999);
    expect(await b.runOnce()).toBeUndefined();
    s.clock.advance(2); // A's renewed lease has lapsed: B takes over, and A is now the one refused
    expect(await b.runOnce()).toBeDefined();
    expect(await a.runOnce()).toBeUndefined();
  });

  it('races: of many replicas asking at once, exactly one leads', async () => {
    const s = await fresh(kind);
    const stores = [s.store];
    for (let i = 0; i < 5; i++) stores.push((await s.replica()) ?? s.store);
    if (stores[1] === s.store) return; // memory: one process, nothing to race
    const schedules = stores.flatMap((store, i) =>
      [0, 1].map((j) => new RetentionSchedule(store, recordingLogger(), { holder: `r${i}-${j}` })),
    );
    const reports = await Promise.all(schedules.map((sch) => sch.runOnce()));
    expect(reports.filter((r) => r !== undefined)).toHaveLength(1);
  });
});

describe('retention schedule failures', () => {
  it('logs a failed run and runs again at the next interval', async () => {
    const s = await fresh('memory');
    const logger = recordingLogger();
    let fail = 1;
    const real = s.store.purgeExpired.bind(s.store);
    const flaky = Object.assign(Object.create(s.store) as typeof s.store, {
      purgeExpired: (p: Parameters<typeof real>[0]) =>
        fail-- > 0 ? Promise.reject(new Error('database is locked')) : real(p),
      tryLead: () => Promise.resolve(true),
    });
    const runs: PurgeReport[] = [];
    const sch = new RetentionSchedule(flaky, logger, { intervalMs: 5, onRun: (r) => runs.push(r) });
    sch.start();
    cleanups.push(() => sch.stop());
    await expect.poll(() => runs.length, { timeout: 2000 }).toBeGreaterThan(0);
    expect(logger.lines).toContainEqual({
      level: 'warn',
      message: 'retention run failed; retrying at the next interval',
    });
  });

  it('is on by default and off with retention: false', () => {
    const a = createAgent('echo');
    const on = createA2AServer({ agent: a.executor, card: a.card });
    const off = createA2AServer({ agent: a.executor, card: a.card, retention: false });
    cleanups.push(
      () => on.close(),
      () => off.close(),
    );
    expect(on.retention?.settings.intervalMs).toBe(60_000);
    expect(on.retention?.settings.interruptedMaxAgeMs).toBe(30 * DAY);
    expect(off.retention).toBeUndefined();
  });
});
