/**
 * Identical keyed continuations racing (docs/semantics.md §3): whichever of them loses the task's
 * compare-and-set must not release the key that protects the winner's run. Afterwards the agent has run the
 * continuation once, the key is still held by the message, and a different message under the key is refused as
 * IDEMPOTENCY_KEY_REUSED. On every store: many promises at once (real interleavings, truly concurrent on
 * PostgreSQL), and one forced interleaving in which the caller that claimed the key is the one that loses.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../../../src/protocol/model.js';
import { ManualClock } from '../../../src/store/clock.js';
import type { TaskStore } from '../../../src/store/task-store.js';
import {
  ANON,
  BINDINGS,
  REFUSALS,
  errorOf,
  expectedShape,
  freshKey,
  keyedMessage,
  makeServer,
  refusalShape,
  send,
  taskOf,
  type TestServer,
} from '../duplicate-safety/helpers.js';
import { closeStores, openStore, STORE_KINDS, type OpenedStore } from '../hostile-input/server-stores.js';
import { claimerLosesTheRace } from './claimer-loses.js';

afterAll(closeStores);

const RACERS = 24;

describe.each(STORE_KINDS)('identical keyed continuations racing (%s store)', (kind) => {
  let t: TestServer | undefined;
  let opened: OpenedStore | undefined;
  afterEach(async () => {
    await t?.close();
    await opened?.cleanup();
  });

  async function serverOn(wrap?: (s: TaskStore) => TaskStore): Promise<TestServer> {
    const clock = new ManualClock();
    opened = await openStore(kind, clock);
    t = makeServer({ clock, store: wrap ? wrap(opened.store) : opened.store });
    return t;
  }

  /** A task waiting for input, and a keyed continuation message for it. */
  async function interruptedTask(s: TestServer): Promise<{ taskId: string; key: string; next: Message }> {
    const task = taskOf(await send(s.ep, 'jsonrpc', keyedMessage('input please')));
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const key = freshKey();
    return { taskId: task.id, key, next: keyedMessage('done', key, { taskId: task.id }) };
  }

  /** What must hold once the racers settled: one run, the key kept, another message under it refused. */
  async function expectKeyProtectsTheRun(
    s: TestServer,
    taskId: string,
    key: string,
    next: Message,
  ): Promise<void> {
    const continuations = s.agent.executionsOf(taskId).filter((e) => e.isContinuation);
    expect(continuations.map((e) => e.messageId)).toEqual([next.messageId]);
    const held = await s.store.getKey(ANON, key);
    expect([held?.messageId, held?.taskId, held?.tombstone]).toEqual([next.messageId, taskId, false]);
    for (const binding of BINDINGS) {
      const other = keyedMessage('done differently', key, { taskId });
      expect(refusalShape(errorOf(await send(s.ep, binding, other)))).toEqual(
        expectedShape(binding, REFUSALS.keyReused),
      );
      const elsewhere = keyedMessage('a new task under the same key', key);
      expect(refusalShape(errorOf(await send(s.ep, binding, elsewhere)))).toEqual(
        expectedShape(binding, REFUSALS.keyReused),
      );
    }
    expect(s.agent.executionsOf(taskId).filter((e) => e.isContinuation)).toHaveLength(1);
  }

  it(`${RACERS} identical keyed continuations at once over both bindings: one run, the key kept`, async () => {
    const s = await serverOn();
    const { taskId, key, next } = await interruptedTask(s);
    const answers = await Promise.all(
      Array.from({ length: RACERS }, (_, i) => send(s.ep, BINDINGS[i % 2]!, next)),
    );
    for (const a of answers) expect(taskOf(a).id).toBe(taskId);
    await expectKeyProtectsTheRun(s, taskId, key, next);
  });

  it.skipIf(kind === 'memory')(
    `${RACERS} identical keyed continuations split over two servers sharing the store: one run, the key kept`,
    async () => {
      const s = await serverOn();
      const peerStore = await opened!.openPeer!();
      // A second server on its own connection, as another replica would be (it shares the clock, not the agent).
      const peer = makeServer({ clock: s.clock, store: peerStore });
      try {
        const { taskId, key, next } = await interruptedTask(s);
        const answers = await Promise.all(
          Array.from({ length: RACERS }, (_, i) =>
            send((i % 2 ? peer : s).ep, BINDINGS[(i >> 1) % 2]!, next),
          ),
        );
        for (const a of answers) expect(taskOf(a).id).toBe(taskId);
        const runs = [...s.agent.executionsOf(taskId), ...peer.agent.executionsOf(taskId)];
        expect(runs.filter((e) => e.isContinuation).map((e) => e.messageId)).toEqual([next.messageId]);
        // Count the peer's run on the main agent's books for the shared checks below.
        s.agent.executions.push(...peer.agent.executionsOf(taskId).filter((e) => e.isContinuation));
        await expectKeyProtectsTheRun(s, taskId, key, next);
      } finally {
        await peer.close();
      }
    },
  );

  it('the caller that claimed the key loses the compare-and-set to an identical retry: the key is kept', async () => {
    const gate = { arm: () => undefined as void };
    const s = await serverOn((store) => {
      const wrapped = claimerLosesTheRace(store);
      gate.arm = wrapped.arm;
      return wrapped.store;
    });
    const { taskId, key, next } = await interruptedTask(s);
    gate.arm();
    const [first, retry] = await Promise.all([send(s.ep, 'jsonrpc', next), send(s.ep, 'rest', next)]);
    expect([taskOf(first).id, taskOf(retry).id]).toEqual([taskId, taskId]);
    await expectKeyProtectsTheRun(s, taskId, key, next);
  });
});
