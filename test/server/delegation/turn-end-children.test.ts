/**
 * A turn that ends without finishing its work leaves no child running (docs/semantics.md §4 "Delegation",
 * ADR 0062): whether it ends FAILED by `ctx.fail`, REJECTED, CANCELED by its own status, because its write was
 * fenced out (the task was cancelled through another replica), or because a write was lost, every unsettled
 * child it delegated is cancelled. The parent runs in this process on each real store; the child is a real
 * a2a-once server on 127.0.0.1 whose "hold" work runs until it is stopped.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { A2AClient } from '../../../src/client/index.js';
import type { AgentContext } from '../../../src/server/agent-executor.js';
import { localCallContext } from '../../../src/server/call-context.js';
import type { DelegationHandle } from '../../../src/server/delegation/index.js';
import { StoreWriteError } from '../../../src/server/runner/write-retry.js';
import { MemoryTaskStore } from '../../../src/store/memory/memory-task-store.js';
import { isCall } from '../../client/harness/fault-proxy.js';
import { faultyStore } from '../after-admission/faulty-store.js';
import {
  freshStore,
  gate,
  replica,
  replicaStore,
  STORE_KINDS,
  stored,
  taskOf,
  userMessage,
} from '../leases/harness.js';
import { startChildWithClient, until, type ChildServer } from './child-server.js';

let child: ChildServer;
let client: A2AClient;

beforeAll(async () => {
  ({ child, client } = await startChildWithClient());
});
afterAll(async () => {
  await child.close();
});
beforeEach(() => child.proxy.reset());

/** The child's state, as the child server has it. */
async function childState(handle: DelegationHandle | undefined): Promise<string> {
  return (await client.getTask(handle!.taskId!)).status.state;
}

/** Waits until the child is CANCELED (it holds its work until something stops it: nothing else would). */
async function expectCancelled(handle: () => DelegationHandle | undefined): Promise<void> {
  await until(() => handle() !== undefined);
  await until(async () => (await childState(handle())) === 'TASK_STATE_CANCELED', 5_000);
}

describe.each(STORE_KINDS)('a parent on %s whose turn ends', (kind) => {
  /** Runs one parent turn that delegates a held child, then ends by `end`. */
  async function parentEndingWith(end: (ctx: AgentContext) => Promise<void>, text: string) {
    const s = await freshStore(kind);
    let handle: DelegationHandle | undefined;
    const server = replica(s, s.store, {
      async execute(ctx) {
        handle = await ctx.delegate(client, text, { pollMs: 20 });
        await until(async () => (await childState(handle)) === 'TASK_STATE_WORKING');
        await end(ctx);
      },
    });
    const res = await server.handler.sendMessage({ message: userMessage('parent') }, localCallContext());
    return { parent: taskOf(res), handle: () => handle };
  }

  it('FAILED by ctx.fail cancels its unsettled child', async () => {
    const { parent, handle } = await parentEndingWith((ctx) => ctx.fail('giving up'), `hold fail ${kind}`);
    expect(parent.status.state).toBe('TASK_STATE_FAILED');
    await expectCancelled(handle);
  });

  it('REJECTED by ctx.reject cancels its unsettled child', async () => {
    const { parent, handle } = await parentEndingWith((ctx) => ctx.reject('not mine'), `hold reject ${kind}`);
    expect(parent.status.state).toBe('TASK_STATE_REJECTED');
    await expectCancelled(handle);
  });

  it('CANCELED by its own status cancels its unsettled child', async () => {
    const { parent, handle } = await parentEndingWith(
      (ctx) => ctx.status('TASK_STATE_CANCELED', 'stopping'),
      `hold own cancel ${kind}`,
    );
    expect(parent.status.state).toBe('TASK_STATE_CANCELED');
    await expectCancelled(handle);
  });

  it('COMPLETED leaves a still-running child alone (the agent chose to finish)', async () => {
    const { parent, handle } = await parentEndingWith((ctx) => ctx.complete('done'), `hold complete ${kind}`);
    expect(parent.status.state).toBe('TASK_STATE_COMPLETED');
    await new Promise((r) => setTimeout(r, 200));
    expect(await childState(handle())).toBe('TASK_STATE_WORKING');
    expect(child.proxy.count(isCall('CancelTask'))).toBe(0);
    await handle()!.cancel();
  });

  it('by a write fenced out (cancelled through another replica) cancels its unsettled child', async () => {
    const s = await freshStore(kind);
    const text = `hold fenced ${kind}`;
    const cancelled = gate();
    let handle: DelegationHandle | undefined;
    let ending: unknown;
    const agent = {
      async execute(ctx: AgentContext) {
        handle = await ctx.delegate(client, text, { pollMs: 20 });
        await cancelled.promise;
        try {
          await ctx.working('still here');
          await ctx.flush();
        } catch (err) {
          ending = err;
        }
      },
    };
    const a = replica(s, s.store, agent);
    const res = await a.handler.sendMessage(
      { message: userMessage('parent'), configuration: { returnImmediately: true } },
      localCallContext(),
    );
    await until(() => handle !== undefined);
    // Another replica cancels: this worker hears of it only when its next write is refused.
    const b = replica(s, await replicaStore(s), agent);
    await b.handler.cancelTask({ id: taskOf(res).id }, localCallContext());
    cancelled.open();
    await until(() => ending !== undefined);
    expect((await stored(s.store, taskOf(res).id)).task.status.state).toBe('TASK_STATE_CANCELED');
    await expectCancelled(() => handle);
  });
});

describe('a parent whose write is lost', () => {
  it('cancels its unsettled child before its task ends FAILED', async () => {
    const s = await freshStore('memory');
    const { store, control } = faultyStore(new MemoryTaskStore({ clock: s.clock }));
    let failing = false;
    control.commitPlan = () => (failing ? 'throw' : 'pass');
    let handle: DelegationHandle | undefined;
    let lost: unknown;
    const server = replica(
      s,
      store,
      {
        async execute(ctx) {
          handle = await ctx.delegate(client, 'hold lost write', { pollMs: 20 });
          failing = true;
          try {
            await ctx.working('this write is lost');
            await ctx.flush();
          } catch (err) {
            lost = err;
            failing = false; // the store heals: the runner's FAILED write lands
          }
        },
      },
      // The lost write is given up after 200 ms of retries rather than the default 10 s (ADR 0052).
      { storeWriteBudgetMs: 200 },
    );
    const res = await server.handler.sendMessage({ message: userMessage('parent') }, localCallContext());
    expect(lost).toBeInstanceOf(StoreWriteError);
    expect(taskOf(res).status.state).toBe('TASK_STATE_FAILED');
    await expectCancelled(() => handle);
  }, 30_000);
});
