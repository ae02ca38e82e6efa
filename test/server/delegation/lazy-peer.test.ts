/**
 * A coordinator that starts before its child (ADR 0083): `ctx.delegate` takes a function giving the peer, and
 * `lazyPeer` memoizes it and forgets a failed attempt. Over real servers on 127.0.0.1: the coordinator serves
 * while nothing listens on the child's port; its first turn fails with a clear message, nothing sent; the child
 * starts on that port; the next turn connects, delegates and completes, and later turns reuse the connection.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient, type A2AClientOptions } from '../../../src/client/index.js';
import { createA2AServer, type A2AServer } from '../../../src/server/create-server.js';
import { lazyPeer, PeerUnavailableError, type DelegationPeer } from '../../../src/server/delegation/index.js';
import { serveNode, type NodeServerHandle } from '../../../src/server/node/index.js';
import { silentLogger } from '../../../src/server/observability/logger.js';
import { closeNode } from '../../helpers/close-node.js';

/** A port nothing listens on now (the kernel's choice, released at once). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

const fast: A2AClientOptions = {
  retry: { maxAttempts: 2, backoff: { initialMs: 10, maxMs: 20 } },
  attemptTimeoutMs: 2_000,
};

describe('lazyPeer', () => {
  const peer = { peerHonoursKeys: true } as unknown as DelegationPeer;

  it('gives every caller the one connection, made once', async () => {
    let connects = 0;
    const source = lazyPeer(async () => {
      connects++;
      await new Promise((r) => setTimeout(r, 10));
      return peer;
    });
    const [a, b] = await Promise.all([source(), source()]);
    expect(a).toBe(peer);
    expect(b).toBe(peer);
    expect(await source()).toBe(peer);
    expect(connects).toBe(1);
  });

  it('forgets a failed attempt, so the next call tries again', async () => {
    let connects = 0;
    const source = lazyPeer(() => {
      connects++;
      if (connects === 1) throw new Error('connection refused');
      return peer;
    });
    await expect(source()).rejects.toThrow('connection refused');
    expect(await source()).toBe(peer);
    expect(await source()).toBe(peer);
    expect(connects).toBe(2);
  });
});

describe('a coordinator started before its child', () => {
  let childPort: number;
  let connects = 0;
  let coordinator: A2AServer;
  let coordinatorHttp: NodeServerHandle;
  let child: A2AServer | undefined;
  let childHttp: NodeServerHandle | undefined;
  let childTurns = 0;
  let client: A2AClient;

  beforeAll(async () => {
    childPort = await freePort();
    const researcher = lazyPeer(() => {
      connects++;
      return A2AClient.fromCardUrl(`http://127.0.0.1:${childPort}`, fast);
    });
    coordinator = createA2AServer({
      card: { name: 'coordinator', description: 'Delegates research' },
      logger: silentLogger,
      retention: false,
      agent: {
        resumable: true,
        async execute(ctx) {
          const handle = await ctx.delegate(researcher, ctx.userText, { leaseMs: 10_000 });
          const outcome = await handle.outcome();
          if (outcome.status !== 'completed') return ctx.fail(`research ${outcome.status}`);
          await ctx.artifact({ name: 'report', parts: outcome.task?.artifacts?.[0]?.parts ?? [] });
          await ctx.complete();
        },
      },
    });
    coordinatorHttp = await serveNode(coordinator.fetch);
    client = await A2AClient.fromCardUrl(coordinatorHttp.url);
  });

  afterAll(async () => {
    await closeNode(coordinatorHttp);
    await coordinator.close();
    if (childHttp) await closeNode(childHttp);
    await child?.close();
  });

  it('fails the turn while the child is away, saying so; delegates once the child is up', async () => {
    const early = await client.send('tide tables', { key: 'lazy-peer-tide-early' });
    if (!('task' in early)) throw new Error('expected a task');
    expect(early.task.status.state).toBe('TASK_STATE_FAILED');
    const reason = early.task.status.message?.parts[0];
    // Said to the caller in fixed words: the child's address, in the cause, is for the operator's log only.
    const text = reason && 'text' in reason ? reason.text : '';
    expect(text).toMatch(
      /^The agent failed: the child agent could not be reached, so nothing was delegated \(a later turn tries again\) \(error id err_[0-9a-f]{16}\)$/,
    );
    expect(text).not.toContain('127.0.0.1');
    expect(connects).toBe(1);

    child = createA2AServer({
      card: { name: 'researcher', description: 'Looks things up' },
      logger: silentLogger,
      retention: false,
      agent: {
        async execute(ctx) {
          childTurns++;
          await ctx.artifact({ name: 'finding', parts: [{ text: `notes on ${ctx.userText}` }] });
          await ctx.complete();
        },
      },
    });
    childHttp = await serveNode(child.fetch, { port: childPort });

    const later = await client.send('tide tables', { key: 'lazy-peer-tide-later' });
    if (!('task' in later)) throw new Error('expected a task');
    expect(later.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(later.task.artifacts?.[0]?.parts).toEqual([{ text: 'notes on tide tables' }]);
    expect(connects).toBe(2);

    const again = await client.send('moon phases', { key: 'lazy-peer-moon-phases' });
    expect('task' in again && again.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(connects).toBe(2); // the connection made once is reused
    expect(childTurns).toBe(2);
  });

  it('the error names its code and keeps the connection failure as its cause', () => {
    const err = new PeerUnavailableError({ cause: new Error('ECONNREFUSED') });
    expect(err.code).toBe('DELEGATION_PEER_UNAVAILABLE');
    expect(err.message).toBe(
      'the child agent could not be reached, so nothing was delegated (a later turn tries again)',
    );
    expect((err.cause as Error).message).toBe('ECONNREFUSED');
  });
});
