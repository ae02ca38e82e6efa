/**
 * Once a send is admitted, a store error while the server waits for its task is never answered as a definite
 * failure (ADR 0029): the blocking wait, the returnImmediately grace wait and a keyed replay's wait answer with
 * the task's latest known state, and a stream whose read fails mid-way ends without an error frame (the client
 * treats a cut stream as ambiguous and re-attaches). Each such error is logged as a warning with the task id.
 * The store is a real one (memory, SQLite) behind a thin wrapper that fails its reads on demand.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/store/clock.js';
import type { TaskState } from '../../../src/protocol/task-state.js';
import {
  ANON,
  BINDINGS,
  getTask,
  keyedMessage,
  openStream,
  send,
  serversClosedAfterEach,
  taskOf,
  until,
  userMessage,
  withTimeout,
  type Binding,
  type MakeServerOptions,
  type TestServer,
} from '../duplicate-safety/helpers.js';
import { BACKENDS, type Backend } from './backends.js';
import { faultyStore, type FaultControl } from './faulty-store.js';
import type { TaskStore } from '../../../src/store/task-store.js';

interface Rig {
  readonly t: TestServer;
  readonly real: TaskStore;
  readonly control: FaultControl;
}

describe.each(BACKENDS)('store errors after admission on %s', (backend: Backend) => {
  const server = serversClosedAfterEach();

  async function rig(o: MakeServerOptions = {}): Promise<Rig> {
    const clock = new ManualClock();
    const real = await backend.open(clock);
    const { store, control } = faultyStore(real);
    return { t: server({ ...o, store, clock }), real, control };
  }

  async function stateOf(r: Rig, taskId: string): Promise<TaskState | undefined> {
    return (await r.real.getTask(ANON, taskId))?.task.status.state;
  }

  /** The warning the server must leave when it answers from what it knew. */
  function expectWarned(r: Rig, taskId: string): void {
    const warned = r.t.logger.entries.filter((e) => e.level === 'warn' && e.fields?.taskId === taskId);
    expect(warned.length, JSON.stringify(r.t.logger.entries)).toBeGreaterThan(0);
    expect(warned[0]!.fields?.error).toContain('Connection terminated');
  }

  /** After the store recovers the task still finishes, and its agent ran once. */
  async function expectFinishesOnce(r: Rig, binding: Binding, taskId: string): Promise<void> {
    r.control.healReads();
    r.t.agent.release();
    await until(async () => (await stateOf(r, taskId)) === 'TASK_STATE_COMPLETED', 5000, 'task completed');
    expect(taskOf(await getTask(r.t.ep, binding, taskId)).status.state).toBe('TASK_STATE_COMPLETED');
    expect(r.t.agent.executionsOf(taskId)).toHaveLength(1);
  }

  describe.each(BINDINGS)('over %s', (binding: Binding) => {
    it('a blocking send whose wait fails answers with the latest known state, not -32603 / 500', async () => {
      const r = await rig();
      const pending = send(r.t.ep, binding, userMessage('hold the line'));
      await until(() => r.t.agent.executions.length === 1, 5000, 'agent started');
      const taskId = r.t.agent.executions[0]!.taskId;
      await until(async () => (await stateOf(r, taskId)) === 'TASK_STATE_WORKING', 5000, 'working');
      // Parked in the store, and (on the polling path) past the WORKING event it has already seen.
      await until(
        () =>
          r.control.parked > 0 && (r.real.nextRecord !== undefined || r.control.yielded.get(taskId) === 1),
        5000,
        'wait parked after the first event',
      );
      r.control.failReads();
      const answer = await withTimeout(pending, 5000, 'answer after the store failed');
      expect(answer.httpStatus).toBe(200);
      const task = taskOf(answer);
      expect(task.id).toBe(taskId);
      // The latest record seen: the polling wait saw WORKING; the one-wake-up wait only the admitted record.
      expect(task.status.state).toBe(
        r.real.nextRecord !== undefined ? 'TASK_STATE_SUBMITTED' : 'TASK_STATE_WORKING',
      );
      expectWarned(r, taskId);
      await expectFinishesOnce(r, binding, taskId);
    });

    it('a returnImmediately grace wait that fails answers with the admitted task at once', async () => {
      const r = await rig({ returnImmediatelyGraceMs: 20_000 });
      const pending = send(r.t.ep, binding, userMessage('stall a while'), { returnImmediately: true });
      await until(() => r.t.agent.executions.length === 1 && r.control.parked > 0, 5000, 'grace wait parked');
      const taskId = r.t.agent.executions[0]!.taskId;
      r.control.failReads();
      const task = taskOf(await withTimeout(pending, 5000, 'answer after the store failed'));
      expect(task.id).toBe(taskId);
      expect(task.status.state).toBe('TASK_STATE_SUBMITTED');
      expectWarned(r, taskId);
      await expectFinishesOnce(r, binding, taskId);
    });

    it("a keyed replay's wait that fails answers with the first attempt's task; nothing runs twice", async () => {
      const r = await rig();
      const m = keyedMessage('hold for the retry');
      const first = taskOf(await send(r.t.ep, binding, m, { returnImmediately: true }));
      await until(async () => (await stateOf(r, first.id)) === 'TASK_STATE_WORKING', 5000, 'working');
      const retry = send(r.t.ep, binding, m);
      await until(() => r.control.parked > 0, 5000, 'replay wait parked');
      r.control.failReads();
      const task = taskOf(await withTimeout(retry, 5000, 'replay answer after the store failed'));
      expect(task.id).toBe(first.id);
      expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(task.status.state);
      expectWarned(r, first.id);
      await expectFinishesOnce(r, binding, first.id);
    });

    it('a stream whose store read fails mid-way ends without an error frame', async () => {
      const r = await rig();
      const open = await openStream(r.t.ep, binding, userMessage('hold the stream'));
      if (open.kind !== 'stream') throw new Error(`stream refused: ${JSON.stringify(open.error)}`);
      const snapshot = await open.stream.next();
      const working = await open.stream.next();
      expect(snapshot && 'event' in snapshot && 'task' in snapshot.event).toBe(true);
      expect(working && 'event' in working && 'statusUpdate' in working.event).toBe(true);
      const taskId = r.t.agent.executions[0]!.taskId;
      await until(() => r.control.parked > 0, 5000, 'stream parked');
      r.control.failReads();
      const rest = await open.stream.rest(5000);
      expect(rest.filter((f) => 'error' in f)).toEqual([]);
      expect(rest).toEqual([]);
      expectWarned(r, taskId);
      await expectFinishesOnce(r, binding, taskId);
    });
  });
});
