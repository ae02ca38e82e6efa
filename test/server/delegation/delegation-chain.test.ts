/**
 * A task's place in its delegation chain (docs/semantics.md §4 "Delegation", ADR 0061, ADR 0062): the hop count,
 * chain id and ancestor tokens `delegate` writes, the depth limit a server enforces at its door (before any
 * claim) and in `delegate`, the default budget a child gets, and the cancel of a subtree a server knows of.
 * Parents run in this process on each real store; the child is a real a2a-once server on 127.0.0.1.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { A2AClient } from '../../../src/client/index.js';
import { IDEMPOTENCY_METADATA_KEY, keyHash } from '../../../src/idempotency/index.js';
import { A2AError, ERROR_SPECS } from '../../../src/protocol/errors.js';
import type { Message } from '../../../src/protocol/model.js';
import type { AgentContext } from '../../../src/server/agent-executor.js';
import { localCallContext } from '../../../src/server/call-context.js';
import {
  ANCESTOR_CANCELLED_TEXT,
  CANCELLED_ANCESTOR_METADATA_KEY,
} from '../../../src/server/delegation/cancelled-subtrees.js';
import { ancestorToken, chainIdFor } from '../../../src/server/delegation/delegation-chain.js';
import { DELEGATION_METADATA_KEY, readChildLimits } from '../../../src/server/delegation/index.js';
import { isCall } from '../../client/harness/fault-proxy.js';
import {
  ANON,
  freshStore,
  replica,
  STORE_KINDS,
  stored,
  taskOf,
  textOf,
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

const KEY = 'parent-key-of-the-chain-0001';

/** A message that says it is hop `hop` of a chain, below the tasks whose tokens are `ancestors`. */
function atHop(text: string, hop: number, ancestors: string[] = [], extra: Partial<Message> = {}): Message {
  return userMessage(text, {
    metadata: { [DELEGATION_METADATA_KEY]: { hop, chainId: 'chain-of-the-test', ancestors } },
    ...extra,
  });
}

/** What a refused call threw. */
async function refusal(p: Promise<unknown>): Promise<A2AError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(A2AError);
  return err as A2AError;
}

/** An agent that holds its turn until it is stopped. */
const holding = {
  async execute(ctx: AgentContext) {
    await ctx.working('holding');
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
  },
};

describe.each(STORE_KINDS)('the depth limit at the door, on %s', (kind) => {
  it('refuses a send past maxDepth with DELEGATION_DEPTH_EXCEEDED; nothing is created and the key is not claimed', async () => {
    const s = await freshStore(kind);
    const done = { execute: () => Promise.resolve() };
    const server = replica(s, s.store, done, { delegation: { maxDepth: 2 } });
    const keyed = (m: Message): Message => ({
      ...m,
      metadata: { ...m.metadata, [IDEMPOTENCY_METADATA_KEY]: KEY },
    });
    const err = await refusal(
      server.handler.sendMessage({ message: keyed(atHop('too deep', 3)) }, localCallContext()),
    );
    expect(err.reason).toBe('DELEGATION_DEPTH_EXCEEDED');
    expect([err.code, err.httpStatus, err.grpcStatus]).toEqual([-32602, 400, 'FAILED_PRECONDITION']);
    expect(err.metadata).toEqual({ hop: '3', maxDepth: '2', chainId: 'chain-of-the-test' });
    expect(err.message).toMatch(/hop 3 of delegation chain chain-of-the-test, past the limit of 2/);
    expect((await s.store.listTasks(ANON, { pageSize: 10 })).records).toHaveLength(0);
    // The key was never claimed: the same key with a message the server accepts runs.
    const ok = taskOf(
      await server.handler.sendMessage({ message: keyed(atHop('deep enough', 2)) }, localCallContext()),
    );
    expect(ok.status.state).toBe('TASK_STATE_COMPLETED');
  });
});

describe('delegate', () => {
  /** Runs a parent turn on a memory store whose agent is `body`; resolves with the parent's task id. */
  async function runParent(
    body: (ctx: AgentContext) => Promise<void>,
    message: Message = userMessage('parent'),
    delegation = {},
  ): Promise<string> {
    const s = await freshStore('memory');
    const server = replica(s, s.store, { execute: body }, { delegation });
    return taskOf(await server.handler.sendMessage({ message }, localCallContext())).id;
  }

  const childMessage = (text: string): Message => child.turns.find((t) => t.userText === text)!.message;

  it('writes hop 1, a chain id and the parent token for a root; siblings share them; no key is in any of it', async () => {
    const parentKey = 'the-parent-own-key-0002';
    const parentId = await runParent(
      async (ctx) => {
        await (await ctx.delegate(client, 'quick sibling 1', { pollMs: 20 })).outcome();
        await (await ctx.delegate(client, 'quick sibling 2', { pollMs: 20 })).outcome();
      },
      userMessage('parent', { metadata: { [IDEMPOTENCY_METADATA_KEY]: parentKey } }),
    );
    const [one, two] = [childMessage('quick sibling 1'), childMessage('quick sibling 2')];
    const expected = { hop: 1, chainId: chainIdFor(parentId), ancestors: [ancestorToken(parentId)] };
    expect(readChildLimits(one)).toMatchObject(expected);
    expect(readChildLimits(two)).toMatchObject(expected);
    for (const m of [one, two]) {
      const entry = JSON.stringify(m.metadata?.[DELEGATION_METADATA_KEY]);
      const childKey = m.metadata?.[IDEMPOTENCY_METADATA_KEY] as string;
      for (const k of [parentKey, childKey]) {
        expect(entry).not.toContain(k);
        expect(entry).not.toContain(keyHash(k));
      }
    }
  });

  it('writes one hop more below a delegated parent, with its chain id and its ancestors first', async () => {
    const parentId = await runParent(
      async (ctx) => void (await (await ctx.delegate(client, 'quick grandchild', { pollMs: 20 })).outcome()),
      atHop('parent', 1, ['token-of-the-root-0']),
    );
    expect(readChildLimits(childMessage('quick grandchild'))).toMatchObject({
      hop: 2,
      chainId: 'chain-of-the-test',
      ancestors: ['token-of-the-root-0', ancestorToken(parentId)],
    });
  });

  it('gives a child the default budget of 1 h when nobody above set one; none with defaultBudgetMs false', async () => {
    const before = Date.now();
    await runParent(
      async (ctx) => void (await (await ctx.delegate(client, 'quick budget', { pollMs: 20 })).outcome()),
    );
    const deadline = readChildLimits(childMessage('quick budget'))?.deadline ?? 0;
    expect(deadline).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(deadline).toBeLessThanOrEqual(Date.now() + 3_600_000);
    await runParent(
      async (ctx) => void (await (await ctx.delegate(client, 'quick no budget', { pollMs: 20 })).outcome()),
      userMessage('parent'),
      { defaultBudgetMs: false },
    );
    expect(readChildLimits(childMessage('quick no budget'))?.deadline).toBeUndefined();
  });

  it('refuses a child past its own server maxDepth before recording or sending anything', async () => {
    let thrown: unknown;
    await runParent(
      async (ctx) => {
        thrown = await ctx.delegate(client, 'quick never sent').catch((e: unknown) => e);
      },
      atHop('parent', 1),
      { maxDepth: 1 },
    );
    expect(thrown).toBeInstanceOf(A2AError);
    expect((thrown as A2AError).reason).toBe('DELEGATION_DEPTH_EXCEEDED');
    expect((thrown as A2AError).message).toMatch(
      /hop 2 of delegation chain chain-of-the-test, past the limit of 1/,
    );
    expect(child.proxy.count(isCall('SendMessage'))).toBe(0);
  });
});

describe.each(STORE_KINDS)('a server that cancels a task, on %s', (kind) => {
  it('cancels the tasks it runs below it at once and refuses new sends below it with DELEGATION_CANCELLED', async () => {
    const s = await freshStore(kind);
    const server = replica(s, s.store, holding);
    const send = (message: Message) =>
      server.handler.sendMessage({ message, configuration: { returnImmediately: true } }, localCallContext());
    const root = taskOf(await send(userMessage('root')));
    // Two tasks this server runs below the root (as a loop back to it would make), one beside it.
    const token = ancestorToken(root.id);
    const below = taskOf(await send(atHop('below', 1, [token])));
    const deeper = taskOf(await send(atHop('deeper', 3, ['someone-else-0', token, 'someone-else-1'])));
    const beside = taskOf(await send(atHop('beside', 1, ['someone-else-2'])));
    await server.handler.cancelTask({ id: root.id }, localCallContext());
    for (const id of [below.id, deeper.id]) {
      await until(async () => (await stored(s.store, id)).task.status.state === 'TASK_STATE_CANCELED');
      const status = (await stored(s.store, id)).task.status;
      expect(textOf(status.message)).toBe(ANCESTOR_CANCELLED_TEXT);
      expect(status.message?.metadata?.[CANCELLED_ANCESTOR_METADATA_KEY]).toBe(token);
    }
    expect((await stored(s.store, beside.id)).task.status.state).toBe('TASK_STATE_WORKING');
    const err = await refusal(send(atHop('too late', 1, [token])));
    expect(err.reason).toBe('DELEGATION_CANCELLED');
    expect(err.metadata).toEqual({ cancelledAncestor: token, chainId: 'chain-of-the-test' });
    await server.handler.cancelTask({ id: beside.id }, localCallContext());
  });
});

describe('a parent whose child send is refused with DELEGATION_CANCELLED', () => {
  it('ends CANCELED when the cancelled task is above it, and its server then refuses sends below that task', async () => {
    // The child server cancels a root R: it now refuses sends below R. The parent's turn claims R above it.
    const root = taskOf(
      await child.server.handler.sendMessage(
        { message: userMessage('hold root'), configuration: { returnImmediately: true } },
        localCallContext(),
      ),
    );
    await child.server.handler.cancelTask({ id: root.id }, localCallContext());
    const token = ancestorToken(root.id);
    const s = await freshStore('memory');
    let ended: unknown;
    const server = replica(s, s.store, {
      async execute(ctx) {
        ended = await ctx.delegate(client, 'quick below a cancelled root').catch((e: unknown) => e);
        throw ended;
      },
    });
    const parent = taskOf(
      await server.handler.sendMessage({ message: atHop('parent', 1, [token]) }, localCallContext()),
    );
    // The refusal reached the parent's agent as the child server said it, naming the cancelled task above it.
    expect(ended).toBeInstanceOf(A2AError);
    expect((ended as A2AError).metadata?.cancelledAncestor).toBe(token);
    expect(parent.status.state).toBe('TASK_STATE_CANCELED');
    expect(textOf(parent.status.message)).toBe(ANCESTOR_CANCELLED_TEXT);
    // The parent's server learnt of the cancel from the refusal: it refuses sends below R itself now.
    const err = await refusal(
      server.handler.sendMessage({ message: atHop('another', 1, [token]) }, localCallContext()),
    );
    expect(err.reason).toBe('DELEGATION_CANCELLED');
  });

  it('fails as usual when the refusal names a task that is not above it (a peer cannot cancel it so)', async () => {
    const hostile = {
      peerHonoursKeys: true,
      send: () =>
        Promise.reject(
          new A2AError(
            { ...ERROR_SPECS.InvalidParamsError, reason: 'DELEGATION_CANCELLED' },
            { message: 'refused', metadata: { cancelledAncestor: 'not-an-ancestor-000' } },
          ),
        ),
      getTask: () => Promise.reject(new Error('unused')),
      cancelTask: () => Promise.reject(new Error('unused')),
    };
    const s = await freshStore('memory');
    const server = replica(s, s.store, {
      async execute(ctx) {
        await ctx.delegate(hostile, 'never runs');
      },
    });
    const parent = taskOf(
      await server.handler.sendMessage(
        { message: atHop('parent', 1, ['a-real-ancestor-0']) },
        localCallContext(),
      ),
    );
    expect(parent.status.state).toBe('TASK_STATE_FAILED');
    // The peer's refusal is the parent agent's error like any other: its text stays in the log (ADR 0081).
    expect(textOf(parent.status.message)).toMatch(/^The agent failed \(error id err_[0-9a-f]{16}\)/);
    expect(textOf(parent.status.message)).not.toMatch(/refused/);
    const line = server.logger.lines.find((l) => l.message === 'agent turn failed');
    expect(line?.fields).toMatchObject({ taskId: parent.id, error: 'refused' });
  });
});
