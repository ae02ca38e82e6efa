/**
 * `delegate` from inside an agent (docs/semantics.md §4 "Delegation", ADR 0040), over real a2a-once servers: the
 * parent runs in this process on each real store, the child listens on 127.0.0.1 behind a fault proxy. A parent
 * "dies" the way the lease tests make it (ADR 0037): its turn never finishes while the store's clock moves past
 * its lease, and another replica resumes it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { A2AClient, cardUrlOf, fetchAgentCard, type A2AClientOptions } from '../../../src/client/index.js';
import { IDEMPOTENCY_METADATA_KEY, keyOf } from '../../../src/idempotency/index.js';
import {
  StaleWriterError,
  type AgentContext,
  type AgentExecutor,
} from '../../../src/server/agent-executor.js';
import { localCallContext } from '../../../src/server/call-context.js';
import {
  delegate,
  DELEGATION_METADATA_KEY,
  settleChildren,
  type DelegateOptions,
  type DelegationHandle,
} from '../../../src/server/delegation/index.js';
import { isCall, type SeenRequest } from '../../client/harness/fault-proxy.js';
import {
  freshStore,
  gate,
  LEASE_MS,
  replica,
  replicaStore,
  STORE_KINDS,
  stored,
  taskOf,
  textOf,
  userMessage,
  type Gate,
} from '../leases/harness.js';
import { startChild, until, type ChildServer } from './child-server.js';

let child: ChildServer;
const fast: A2AClientOptions = {
  retry: { maxAttempts: 5, backoff: { initialMs: 20, maxMs: 100 } },
  attemptTimeoutMs: 5_000,
};

beforeAll(async () => {
  child = await startChild();
});
afterAll(async () => {
  await child.close();
});
beforeEach(() => child.proxy.reset());

async function honouring(extra: A2AClientOptions = {}): Promise<A2AClient> {
  const card = await fetchAgentCard(cardUrlOf(child.proxy.url));
  const proxied = {
    ...card,
    supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, url: child.proxy.via(i.url) })),
  };
  return A2AClient.fromCard(proxied, { ...fast, cardUrl: cardUrlOf(child.proxy.url), ...extra });
}

function unkeyed(): A2AClient {
  return A2AClient.fromEndpoint(`${child.proxy.url}/`, { ...fast, peerHonoursKeys: false });
}

const childSends: (r: SeenRequest) => boolean = isCall('SendMessage');

/** Child turns started for the parent task's delegation (their text names the parent's text). */
function childTurnsFor(text: string): AgentContext[] {
  return child.turns.filter((t) => t.userText === text);
}

/**
 * A resumable parent: each run delegates `text`, then waits for the gate of its run before reading the child's
 * outcome and completing with it. The first run is left waiting: that is the worker that dies.
 */
class DelegatingParent implements AgentExecutor {
  readonly resumable = true;
  readonly runs: { ctx: AgentContext; handle: DelegationHandle }[] = [];
  readonly gates: Gate[] = [gate(), gate(), gate()];
  constructor(
    private readonly client: () => Promise<A2AClient> | A2AClient,
    private readonly text: string,
    private readonly options: DelegateOptions = { pollMs: 20 },
  ) {}

  async execute(ctx: AgentContext): Promise<void> {
    const handle = await delegate(ctx, await this.client(), this.text, this.options);
    this.runs.push({ ctx, handle });
    await this.gates[ctx.isResumed ? 1 : 0]!.promise;
    const o = await handle.outcome();
    await ctx.complete(`child ${o.status} ${handle.taskId ?? '-'}`);
  }
}

describe.each(STORE_KINDS)('a resumed parent on %s', (kind) => {
  /** Starts the parent, lets its worker die once `died()` holds, resumes it on another replica. */
  async function dieAndResume(
    parent: DelegatingParent,
    text: string,
    died: () => boolean = () => parent.runs.length === 1,
  ) {
    const s = await freshStore(kind);
    const a = replica(s, s.store, parent);
    const res = await a.handler.sendMessage(
      { message: userMessage(`parent of ${text}`), configuration: { returnImmediately: true } },
      localCallContext(),
    );
    const task = taskOf(res);
    await until(died);
    const b = replica(s, await replicaStore(s), parent);
    s.clock.advance(LEASE_MS + 1);
    await b.handler.getTask({ id: task.id }, localCallContext());
    await until(() => parent.runs.some((r) => r.ctx.isResumed));
    parent.gates[1]!.open();
    await until(async () => (await stored(s.store, task.id)).task.status.state === 'TASK_STATE_COMPLETED');
    return (await stored(s.store, task.id)).task;
  }

  it('after its step recorded the child: the same child, no second send, one child execution', async () => {
    const text = `quick recorded ${kind}`;
    const parent = new DelegatingParent(honouring, text);
    const done = await dieAndResume(parent, text);
    const [first, second] = parent.runs;
    expect(second!.ctx.isResumed).toBe(true);
    expect(second!.handle.taskId).toBe(first!.handle.taskId);
    expect(child.proxy.count(childSends)).toBe(1);
    expect(childTurnsFor(text)).toHaveLength(1);
    expect(textOf(done.status.message)).toBe(`child completed ${first!.handle.taskId}`);
  });

  it('after the key was recorded and the answer lost: resends with the recorded key and gets the replay', async () => {
    const text = `quick lost answer ${kind}`;
    const parent = new DelegatingParent(() => honouring({ retry: false }), text);
    child.proxy.inject({ kind: 'drop-response' }, childSends, 1);
    const done = await dieAndResume(parent, text);
    const [first, second] = parent.runs;
    expect(await first!.handle.outcome()).toMatchObject({ status: 'lost' });
    expect((await first!.handle.outcome()).reason).toMatch(/a resumed parent resends it/);
    const sent = child.proxy.requests.filter(childSends);
    expect(sent).toHaveLength(2);
    const keys = sent.map((r) => JSON.stringify(r.body).match(/ik1\.[0-9a-z]+\.[A-Za-z0-9_-]+/)?.[0]);
    expect(keys[0]).toBeDefined();
    expect(keys[1]).toBe(keys[0]);
    const turns = childTurnsFor(text);
    expect(turns).toHaveLength(1);
    expect(second!.handle.taskId).toBe(turns[0]!.taskId);
    expect(textOf(done.status.message)).toBe(`child completed ${turns[0]!.taskId}`);
  });

  it('with an unkeyed send whose answer was lost: reports the child lost and never resends', async () => {
    const text = `quick unkeyed lost ${kind}`;
    const parent = new DelegatingParent(unkeyed, text);
    child.proxy.inject({ kind: 'drop-response' }, childSends, 1);
    const done = await dieAndResume(parent, text);
    expect(await parent.runs[1]!.handle.outcome()).toMatchObject({ status: 'lost' });
    expect(child.proxy.count(childSends)).toBe(1);
    expect(keyOf(childTurnsFor(text)[0]!.message)).toBeUndefined();
    expect(textOf(done.status.message)).toBe('child lost -');
  });

  it('whose unkeyed send was still in flight when its worker died: reports the child lost, no resend', async () => {
    const text = `quick unkeyed in flight ${kind}`;
    const parent = new DelegatingParent(unkeyed, text);
    child.proxy.inject({ kind: 'delay', ms: 1_500 }, childSends, 1);
    const done = await dieAndResume(parent, text, () => child.proxy.count(childSends) === 1);
    const resumed = parent.runs.find((r) => r.ctx.isResumed)!;
    const outcome = await resumed.handle.outcome();
    expect(outcome.status).toBe('lost');
    expect(outcome.reason).toMatch(/may have sent this unkeyed child message/);
    expect(textOf(done.status.message)).toBe('child lost -');
    await until(() => childTurnsFor(text).length === 1);
    expect(child.proxy.count(childSends)).toBe(1);
  });

  it('whose keyed send was still in flight when its worker died: resends the same key, one child', async () => {
    const text = `quick keyed in flight ${kind}`;
    const parent = new DelegatingParent(honouring, text);
    child.proxy.inject({ kind: 'delay', ms: 1_500 }, childSends, 1);
    const done = await dieAndResume(parent, text, () => child.proxy.count(childSends) === 1);
    const turns = childTurnsFor(text);
    expect(turns).toHaveLength(1);
    expect(textOf(done.status.message)).toBe(`child completed ${turns[0]!.taskId}`);
    await until(() => child.proxy.count(childSends) === 2, 8_000);
  });
});

describe('delegate in one run', () => {
  /** A parent server whose agent runs `body`; the send returns once the agent finished. */
  async function runParent(body: (ctx: AgentContext) => Promise<void>): Promise<void> {
    const s = await freshStore('memory');
    const server = replica(s, s.store, { execute: body });
    await server.handler.sendMessage({ message: userMessage('parent') }, localCallContext());
  }

  it('reaches one child when the link drops the first answer', async () => {
    const client = await honouring();
    child.proxy.inject({ kind: 'drop-response' }, childSends, 1);
    let status = '';
    await runParent(async (ctx) => {
      status = (await (await delegate(ctx, client, 'quick flaky parent', { pollMs: 20 })).outcome()).status;
    });
    expect(status).toBe('completed');
    expect(child.proxy.count(childSends)).toBe(2);
    expect(childTurnsFor('quick flaky parent')).toHaveLength(1);
  });

  it('ctx.delegate is the same call: one child through a link that drops the first answer', async () => {
    const client = await honouring();
    child.proxy.inject({ kind: 'drop-response' }, childSends, 1);
    let status = '';
    await runParent(async (ctx) => {
      status = (await (await ctx.delegate(client, 'quick ctx parent', { pollMs: 20 })).outcome()).status;
    });
    expect(status).toBe('completed');
    expect(child.proxy.count(childSends)).toBe(2);
    expect(childTurnsFor('quick ctx parent')).toHaveLength(1);
  });

  it('a keyed send still unknown after retries is lost; delegating again under its name reaches the same child', async () => {
    const client = await honouring({ retry: false });
    const text = 'quick named retry';
    child.proxy.inject({ kind: 'drop-response' }, childSends, 1);
    let first: DelegationHandle | undefined;
    let second: DelegationHandle | undefined;
    await runParent(async (ctx) => {
      first = await delegate(ctx, client, text, { pollMs: 20, name: 'summary' });
      second = await delegate(ctx, client, text, { pollMs: 20, name: 'summary' });
      await second.outcome();
    });
    const lost = await first!.outcome();
    expect(lost.status).toBe('lost');
    expect(lost.reason).toMatch(/delegate\(\) again with name "summary"/);
    expect(lost.reason).not.toMatch(/ik1\./);
    expect((await second!.outcome()).status).toBe('completed');
    expect(child.proxy.count(childSends)).toBe(2);
    expect(childTurnsFor(text)).toHaveLength(1);
    expect(second!.taskId).toBe(childTurnsFor(text)[0]!.taskId);
  });

  it('keeps a key the caller set, and passes the parent budget down to the child', async () => {
    const client = await honouring();
    const deadline = Date.now() + 60_000;
    const s = await freshStore('memory');
    const server = replica(s, s.store, {
      async execute(ctx) {
        const m = {
          ...userMessage('quick caller key'),
          metadata: { [IDEMPOTENCY_METADATA_KEY]: 'caller-chosen-key-0002' },
        };
        await (await delegate(ctx, client, m, { pollMs: 20 })).outcome();
      },
    });
    await server.handler.sendMessage(
      {
        message: userMessage('parent', {
          metadata: { [DELEGATION_METADATA_KEY]: { deadline: new Date(deadline).toISOString() } },
        }),
      },
      localCallContext(),
    );
    const seen = childTurnsFor('quick caller key')[0]!.message;
    expect(keyOf(seen)).toBe('caller-chosen-key-0002');
    // The parent's own budget, and the child's place in the chain below it (ADR 0061).
    expect(seen.metadata?.[DELEGATION_METADATA_KEY]).toMatchObject({
      deadline: new Date(deadline).toISOString(),
      hop: 1,
    });
  });

  it('fails a turn whose own message carries a malformed delegation entry before the agent runs, sending nothing', async () => {
    const client = await honouring();
    const s = await freshStore('memory');
    let ran = false;
    const server = replica(s, s.store, {
      async execute(ctx) {
        ran = true;
        await delegate(ctx, client, 'quick never sent');
      },
    });
    const res = await server.handler.sendMessage(
      {
        message: userMessage('parent', { metadata: { [DELEGATION_METADATA_KEY]: { deadline: 'tomorrow' } } }),
      },
      localCallContext(),
    );
    const task = 'task' in res ? res.task : undefined;
    expect(task?.status.state).toBe('TASK_STATE_FAILED');
    expect(JSON.stringify(task?.status.message)).toMatch(/deadline must be an ISO 8601 time/);
    expect(ran).toBe(false);
    expect(childTurnsFor('quick never sent')).toHaveLength(0);
    expect(child.proxy.count(childSends)).toBe(0);
  });

  it('cancelling the parent cancels its unsettled child', async () => {
    const client = await honouring();
    const s = await freshStore('memory');
    let handle: DelegationHandle | undefined;
    const server = replica(s, s.store, {
      async execute(ctx) {
        handle = await delegate(ctx, client, 'hold for parent cancel', { pollMs: 20, leaseMs: 1_000 });
        await handle.outcome();
      },
    });
    const res = await server.handler.sendMessage(
      { message: userMessage('parent'), configuration: { returnImmediately: true } },
      localCallContext(),
    );
    await until(() => handle !== undefined);
    await server.handler.cancelTask({ id: taskOf(res).id }, localCallContext());
    expect((await handle!.outcome()).status).toBe('canceled');
    const ended = await client.getTask(handle!.taskId!);
    expect(ended.status.state).toBe('TASK_STATE_CANCELED');
    // By the parent's cancel, at once: the child's lease (1 s) never lapsed.
    expect(child.proxy.count(isCall('CancelTask'))).toBe(1);
  });

  it('cancelling the parent while its child send is answered still cancels the child', async () => {
    const client = await honouring();
    const s = await freshStore('memory');
    const text = 'hold for a cancel mid-send';
    let ended: unknown;
    const server = replica(s, s.store, {
      async execute(ctx) {
        try {
          await delegate(ctx, client, text, { pollMs: 20 });
        } catch (err) {
          ended = err;
        }
      },
    });
    child.proxy.inject({ kind: 'delay', ms: 500 }, childSends, 1);
    const res = await server.handler.sendMessage(
      { message: userMessage('parent'), configuration: { returnImmediately: true } },
      localCallContext(),
    );
    await until(() => childTurnsFor(text).length === 1);
    await server.handler.cancelTask({ id: taskOf(res).id }, localCallContext());
    await until(() => ended !== undefined);
    expect(ended).toBeInstanceOf(StaleWriterError);
    const childTask = childTurnsFor(text)[0]!.taskId;
    await until(async () => (await client.getTask(childTask)).status.state === 'TASK_STATE_CANCELED');
  });

  it('settleChildren cancels the unsettled children and leaves finished ones alone', async () => {
    const client = await honouring();
    let held: DelegationHandle | undefined;
    let quick: DelegationHandle | undefined;
    await runParent(async (ctx) => {
      quick = await delegate(ctx, client, 'quick settled', { pollMs: 20 });
      await quick.outcome();
      held = await delegate(ctx, client, 'hold settled', { pollMs: 20 });
      await settleChildren(ctx);
    });
    expect((await client.getTask(held!.taskId!)).status.state).toBe('TASK_STATE_CANCELED');
    expect((await client.getTask(quick!.taskId!)).status.state).toBe('TASK_STATE_COMPLETED');
    expect(child.proxy.count(isCall('CancelTask'))).toBe(1);
  });
});
