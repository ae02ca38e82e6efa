/**
 * docs/semantics.md §1 and §2, row by row, over JSON-RPC and REST: the outcomes of a keyed send, the key's form and
 * scope, and where the claim sits (after every check that can refuse on its own terms, released when anything
 * fails before the task is handed to its worker).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  IDEMPOTENCY_EXTENSION_URI,
  IDEMPOTENCY_METADATA_KEY,
  mintKey,
} from '../../../src/idempotency/index.js';
import type { Message } from '../../../src/protocol/model.js';
import type { ServerLogger } from '../../../src/server/observability/logger.js';
import type { Runner } from '../../../src/server/runner/runner.js';
import type { Scope } from '../../../src/store/scope.js';
import {
  ANON,
  BINDINGS,
  CapturingLogger,
  DAY,
  DelegatingStore,
  REFUSALS,
  errorOf,
  expectedShape,
  freshKey,
  getTask,
  keyedMessage,
  makeServer,
  openStream,
  refusalShape,
  send,
  taskOf,
  until,
  userMessage,
  withTimeout,
  type Binding,
  type TestServer,
  serversClosedAfterEach,
} from './helpers.js';

describe.each(BINDINGS)('docs/semantics.md §2 keyed send outcomes over %s', (binding: Binding) => {
  let t: TestServer;
  beforeEach(() => {
    t = makeServer();
  });
  afterEach(async () => {
    await t.close();
  });

  it('K unseen: claims the key, creates the task and runs the agent once, with a normal result', async () => {
    const key = freshKey();
    const m = keyedMessage('hello', key);
    const a = await send(t.ep, binding, m);
    const task = taskOf(a);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(t.agent.executions).toHaveLength(1);
    expect(t.agent.executions[0]?.taskId).toBe(task.id);
    const held = await t.memory.getKey(ANON, key);
    expect(held).toMatchObject({ taskId: task.id, messageId: m.messageId, tombstone: false });
    // The server activated the extension for this call and says so.
    expect(a.headers.get('A2A-Extensions') ?? '').toContain(IDEMPOTENCY_EXTENSION_URI);
  });

  it('K held, same M, same D: replays the first task; the agent does not run again', async () => {
    const m = keyedMessage('hello');
    const first = taskOf(await send(t.ep, binding, m));
    const second = taskOf(await send(t.ep, binding, m));
    // Same message with members in another order and without the URI: the digest ignores both.
    const { extensions: _ext, ...withoutUri } = m;
    const reordered = Object.fromEntries(Object.entries(withoutUri).reverse()) as unknown as Message;
    const third = taskOf(await send(t.ep, binding, reordered));
    expect(second.id).toBe(first.id);
    expect(third.id).toBe(first.id);
    expect(second.status.state).toBe('TASK_STATE_COMPLETED');
    expect(t.agent.executions).toHaveLength(1);
    expect(t.memory.taskCount).toBe(1);
  });

  it('K held, same M, same D, with forms the server normalises (raw bytes, a contextId, empty fields): replays', async () => {
    // The claim's digest is taken from the stored (normalised) copy of the message; a retry sent exactly as the
    // first attempt was must still digest the same.
    const m: Message = {
      ...keyedMessage('hello'),
      contextId: 'ctx-chosen-by-client',
      referenceTaskIds: [],
      parts: [{ raw: 'aGVsbG8_-w' }, { text: 'hi', mediaType: '' }],
    };
    const first = taskOf(await send(t.ep, binding, m));
    const second = taskOf(await send(t.ep, binding, m));
    expect(second.id).toBe(first.id);
    expect(second.contextId).toBe('ctx-chosen-by-client');
    expect(t.agent.executions).toHaveLength(1);
    // And a real change of the bytes is still a conflict.
    const changed: Message = { ...m, parts: [{ raw: 'aGVsbG9_-w' }, { text: 'hi' }] };
    expect(refusalShape(errorOf(await send(t.ep, binding, changed)))).toEqual(
      expectedShape(binding, REFUSALS.keyReused),
    );
  });

  it('K held, different M: conflict IDEMPOTENCY_KEY_REUSED naming the holding messageId, never the task', async () => {
    const key = freshKey();
    const m1 = keyedMessage('hello', key);
    const first = taskOf(await send(t.ep, binding, m1));
    const m2 = keyedMessage('hello', key); // same text, new messageId
    const a = await send(t.ep, binding, m2);
    const e = errorOf(a);
    expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.keyReused));
    expect(e.metadata?.heldByMessageId).toBe(m1.messageId);
    expect(JSON.stringify(e)).not.toContain(first.id);
    expect(t.agent.executions).toHaveLength(1);
  });

  it('K held, different M, streaming: the same conflict, before any event', async () => {
    const key = freshKey();
    const m1 = keyedMessage('hello', key);
    taskOf(await send(t.ep, binding, m1));
    const open = await openStream(t.ep, binding, keyedMessage('other', key));
    const e = errorOf(open);
    expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.keyReused));
    expect(e.metadata?.heldByMessageId).toBe(m1.messageId);
    expect(t.agent.executions).toHaveLength(1);
  });

  it('K held, same M, different D: conflict IDEMPOTENCY_KEY_REUSED (a client bug, never a silent wrong answer)', async () => {
    const m = keyedMessage('hello');
    taskOf(await send(t.ep, binding, m));
    const changedText: Message = { ...m, parts: [{ text: 'hello, changed' }] };
    const changedMetadata: Message = { ...m, metadata: { ...m.metadata, note: 'x' } };
    for (const variant of [changedText, changedMetadata]) {
      const e = errorOf(await send(t.ep, binding, variant));
      expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.keyReused));
    }
    expect(t.agent.executions).toHaveLength(1);
  });

  it('K held, its task removed by retention: TASK_NOT_FOUND, and the send does not run again', async () => {
    const key = freshKey();
    const m = keyedMessage('hello', key);
    taskOf(await send(t.ep, binding, m));
    const report = await t.memory.purgeExpired({ terminalMaxAgeMs: 0 });
    expect(report.tasks).toBe(1);
    expect(report.keys).toBe(0); // a key is never deleted with its task
    const e = errorOf(await send(t.ep, binding, m));
    expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.taskNotFound));
    expect(t.agent.executions).toHaveLength(1);
    expect(t.memory.taskCount).toBe(0);
  });

  it('a malformed key is refused with IDEMPOTENCY_KEY_INVALID before anything runs', async () => {
    const bad: unknown[] = [
      'short',
      'a'.repeat(256),
      'has spaces in it!!',
      'line\nbreak-in-the-key',
      null,
      42,
      {},
      [],
      true,
    ];
    for (const value of bad) {
      const m = { ...userMessage('hello'), metadata: { [IDEMPOTENCY_METADATA_KEY]: value } };
      const e = errorOf(await send(t.ep, binding, m));
      expect(refusalShape(e), `key ${JSON.stringify(value)}`).toEqual(
        expectedShape(binding, REFUSALS.keyInvalid),
      );
    }
    expect(t.agent.executions).toHaveLength(0);
    expect(t.memory.taskCount).toBe(0);
  });

  it('a malformed key is refused first: before the lifecycle guard and before the store capability check', async () => {
    const m = {
      ...userMessage('hello', { taskId: 'no-such-task' }),
      metadata: { [IDEMPOTENCY_METADATA_KEY]: 'x' },
    };
    const e = errorOf(await send(t.ep, binding, m));
    expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.keyInvalid));
  });

  it('key present, URI missing: the key is still honoured', async () => {
    const key = freshKey();
    const m = { ...userMessage('hello'), metadata: { [IDEMPOTENCY_METADATA_KEY]: key } };
    const first = taskOf(await send(t.ep, binding, m));
    const again = taskOf(await send(t.ep, binding, m));
    expect(again.id).toBe(first.id);
    expect(t.agent.executions).toHaveLength(1);
    expect((await t.memory.getKey(ANON, key))?.taskId).toBe(first.id);
  });

  it('URI present, no key: an ordinary unkeyed send (each send runs)', async () => {
    const m = userMessage('hello', { extensions: [IDEMPOTENCY_EXTENSION_URI] });
    const a = taskOf(await send(t.ep, binding, m));
    const b = taskOf(await send(t.ep, binding, { ...m, messageId: `${m.messageId}-2` }));
    expect(a.id).not.toBe(b.id);
    expect(t.agent.executions).toHaveLength(2);
  });

  it('key scope is the tenant: the same key in another tenant never reaches the first tenant’s task', async () => {
    const m = keyedMessage('hello');
    const inA = taskOf(await send(t.ep, binding, m, { tenant: 'tenant-a' }));
    const inB = taskOf(await send(t.ep, binding, m, { tenant: 'tenant-b' }));
    expect(inB.id).not.toBe(inA.id);
    const replayA = taskOf(await send(t.ep, binding, m, { tenant: 'tenant-a' }));
    expect(replayA.id).toBe(inA.id);
    const e = errorOf(await getTask(t.ep, binding, inA.id, 'tenant-b'));
    expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.taskNotFound));
    expect(t.agent.executions.map((x) => x.tenant).sort()).toEqual(['tenant-a', 'tenant-b']);
  });

  it('a key that is too old by its own mint time is EXPIRED even when this server never saw it', async () => {
    const key = mintKey(t.clock.now() - 2 * DAY);
    const e = errorOf(await send(t.ep, binding, keyedMessage('hello', key)));
    expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.keyExpired));
    expect(t.agent.executions).toHaveLength(0);
  });

  it('a time-stamped key within its TTL is claimed normally', async () => {
    const key = mintKey(t.clock.now() - 1000);
    const task = taskOf(await send(t.ep, binding, keyedMessage('hello', key)));
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(t.agent.executions).toHaveLength(1);
  });
});

describe.each(BINDINGS)(
  'docs/semantics.md §2 outcomes that need server options, over %s',
  (binding: Binding) => {
    const servers: TestServer[] = [];
    const server = (o: Parameters<typeof makeServer>[0]) => {
      const s = makeServer(o);
      servers.push(s);
      return s;
    };
    afterEach(async () => {
      await Promise.all(servers.splice(0).map((s) => s.close()));
    });

    it('K past its TTL with a tombstone: IDEMPOTENCY_KEY_EXPIRED, never silently run again', async () => {
      const t = server({ keyTtlMs: 60_000 });
      const m = keyedMessage('hello');
      taskOf(await send(t.ep, binding, m));
      t.clock.advance(60_001);
      const report = await t.memory.purgeExpired({ terminalMaxAgeMs: 0 });
      expect(report).toMatchObject({ tasks: 1, keys: 1 });
      const e = errorOf(await send(t.ep, binding, m));
      expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.keyExpired));
      expect(t.agent.executions).toHaveLength(1);
    });

    it('expiredKeys: treat-as-new runs an expired key again as a new task (a2a-rust behaviour)', async () => {
      const t = server({ keyTtlMs: 60_000, expiredKeys: 'treat-as-new' });
      const m = keyedMessage('hello');
      const first = taskOf(await send(t.ep, binding, m));
      t.clock.advance(60_001);
      await t.memory.purgeExpired({ terminalMaxAgeMs: 0 });
      const second = taskOf(await send(t.ep, binding, m));
      expect(second.id).not.toBe(first.id);
      expect(t.agent.executions).toHaveLength(2);
      const old = taskOf(await send(t.ep, binding, keyedMessage('old', mintKey(t.clock.now() - 3 * DAY))));
      expect(old.status.state).toBe('TASK_STATE_COMPLETED');
    });

    it('key index at its cap: 503 + Retry-After (JSON-RPC -32603 IDEMPOTENCY_CAPACITY) and nothing runs', async () => {
      const t = server({ maxKeysPerScope: 2 });
      const held = [keyedMessage('one'), keyedMessage('two')];
      for (const m of held) taskOf(await send(t.ep, binding, m));
      const a = await send(t.ep, binding, keyedMessage('three'));
      const e = errorOf(a);
      expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.capacity));
      expect(e.httpStatus).toBe(503);
      expect(Number(e.retryAfter)).toBeGreaterThan(0);
      expect(t.agent.executions).toHaveLength(2);
      expect(t.memory.taskCount).toBe(2);
      // At the cap, a retry of a held key still replays and an unkeyed send still runs.
      expect(taskOf(await send(t.ep, binding, held[0]!)).status.state).toBe('TASK_STATE_COMPLETED');
      taskOf(await send(t.ep, binding, userMessage('unkeyed')));
      expect(t.agent.executions).toHaveLength(3);
      // The cap is per tenant.
      taskOf(await send(t.ep, binding, keyedMessage('elsewhere'), { tenant: 'other-tenant' }));
    });

    it('key index at its cap, streaming: the same 503 refusal before any event', async () => {
      const t = server({ maxKeysPerScope: 1 });
      taskOf(await send(t.ep, binding, keyedMessage('one')));
      const open = await openStream(t.ep, binding, keyedMessage('two'));
      const e = errorOf(open);
      expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.capacity));
      expect(e.httpStatus).toBe(503);
      expect(Number(e.retryAfter)).toBeGreaterThan(0);
      expect(t.agent.executions).toHaveLength(1);
    });

    it('key scope is the principal: another principal’s identical key never reaches the first one’s task', async () => {
      const t = server({ http: { authenticate: (req) => req.headers.get('x-principal') ?? undefined } });
      const m = keyedMessage('hello');
      const alice = taskOf(await send(t.ep, binding, m, { headers: { 'x-principal': 'alice' } }));
      const bob = taskOf(await send(t.ep, binding, m, { headers: { 'x-principal': 'bob' } }));
      expect(bob.id).not.toBe(alice.id);
      const e = errorOf(await getTask(t.ep, binding, alice.id, undefined, { 'x-principal': 'bob' }));
      expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.taskNotFound));
      expect(taskOf(await send(t.ep, binding, m, { headers: { 'x-principal': 'alice' } })).id).toBe(alice.id);
    });
  },
);

describe.each(BINDINGS)(
  'claim placement over %s (docs/semantics.md §2 "Claim placement")',
  (binding: Binding) => {
    const server = serversClosedAfterEach();

    it('a send refused by the push-config check does not claim its key; the retry without it runs', async () => {
      // A host that turned push off: a send carrying a config is refused after every other check.
      const t = server({ push: false });
      const key = freshKey();
      const m = keyedMessage('hello', key);
      const e = errorOf(await send(t.ep, binding, m, { pushConfig: { url: 'https://example.com/hook' } }));
      expect(e.reason).toBe('PUSH_NOTIFICATION_NOT_SUPPORTED');
      expect(await t.memory.getKey(ANON, key)).toBeUndefined();
      expect(taskOf(await send(t.ep, binding, m)).status.state).toBe('TASK_STATE_COMPLETED');
      expect(t.agent.executions).toHaveLength(1);
    });

    it('a send refused by version negotiation does not claim its key', async () => {
      const t = server();
      const key = freshKey();
      const m = keyedMessage('hello', key);
      const e = errorOf(await send(t.ep, binding, m, { headers: { 'A2A-Version': '9.9' } }));
      expect(e.reason).toBe('VERSION_NOT_SUPPORTED');
      expect(await t.memory.getKey(ANON, key)).toBeUndefined();
      expect(t.agent.executions).toHaveLength(0);
    });

    it('a send refused for a missing required extension does not claim its key', async () => {
      const t = server({
        card: {
          name: 'x',
          description: 'x',
          capabilities: {
            streaming: true,
            extensions: [{ uri: 'https://example.com/ext/required', required: true }],
          },
        },
      });
      const key = freshKey();
      const e = errorOf(await send(t.ep, binding, keyedMessage('hello', key)));
      expect(e.reason).toBe('EXTENSION_SUPPORT_REQUIRED');
      expect(await t.memory.getKey(ANON, key)).toBeUndefined();
      expect(t.agent.executions).toHaveLength(0);
    });

    it('a send refused by the lifecycle guard does not claim its key', async () => {
      const t = server();
      const first = taskOf(await send(t.ep, binding, userMessage('done')));
      const key = freshKey();
      const e = errorOf(await send(t.ep, binding, keyedMessage('more', key, { taskId: first.id })));
      expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.unsupported));
      expect(await t.memory.getKey(ANON, key)).toBeUndefined();
      // The key is free for a new send.
      expect(taskOf(await send(t.ep, binding, keyedMessage('fresh', key))).status.state).toBe(
        'TASK_STATE_COMPLETED',
      );
    });

    it('a claim whose task could not be handed to a worker is released; the retry runs once', async () => {
      const t = server();
      const runner: Runner = t.server.handler.runner;
      const start = runner.start.bind(runner);
      let failNext = true;
      runner.start = (turn) => {
        if (failNext) {
          failNext = false;
          throw new Error('no worker available');
        }
        return start(turn);
      };
      const key = freshKey();
      const m = keyedMessage('hello', key);
      const e = errorOf(await send(t.ep, binding, m));
      expect(binding === 'jsonrpc' ? e.code : e.httpStatus).toBe(binding === 'jsonrpc' ? -32603 : 500);
      await until(async () => (await t.memory.getKey(ANON, key)) === undefined, 2000, 'key released');
      expect(t.memory.taskCount).toBe(0);
      const task = taskOf(await send(t.ep, binding, m));
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(t.agent.executions).toHaveLength(1);
      await until(
        () => t.metrics.total('a2a_once.admission', { outcome: 'released' }) === 1,
        2000,
        'released counted',
      );
    });

    it('the release completes before the failure is answered, so an immediate retry runs (async store)', async () => {
      class SlowReleaseStore extends DelegatingStore {
        override async releaseClaim(scope: Scope, taskId: string, key: string | undefined): Promise<boolean> {
          await new Promise((r) => setTimeout(r, 150));
          return this.inner.releaseClaim(scope, taskId, key);
        }
      }
      const t = server({ wrap: (mem) => new SlowReleaseStore(mem), blockingTimeoutMs: 2000 });
      const runner: Runner = t.server.handler.runner;
      const start = runner.start.bind(runner);
      let failNext = true;
      runner.start = (turn) => {
        if (failNext) {
          failNext = false;
          throw new Error('no worker available');
        }
        return start(turn);
      };
      const m = keyedMessage('hello');
      errorOf(await send(t.ep, binding, m));
      // The caller retries at once, as docs/semantics.md promises it may.
      const retry = await withTimeout(send(t.ep, binding, m), 5000, 'retry');
      const task = taskOf(retry);
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(t.agent.executions).toHaveLength(1);
    });

    it('a throwing host logger after the claim cannot strand the claim: the send runs and its retry replays', async () => {
      const capture = new CapturingLogger();
      let throwOnce = true;
      const logger: ServerLogger = {
        debug: (msg, f) => {
          if (throwOnce && msg === 'send admitted') {
            throwOnce = false;
            throw new Error('log sink unavailable');
          }
          capture.debug(msg, f);
        },
        info: (msg, f) => capture.info(msg, f),
        warn: (msg, f) => capture.warn(msg, f),
        error: (msg, f) => capture.error(msg, f),
      };
      const t = server({ logger, blockingTimeoutMs: 1000 });
      const m = keyedMessage('hello');
      // Host callbacks are isolated (admission.ts `safely`): a broken log sink is not the send's failure, so no
      // task is ever created and then abandoned.
      const first = taskOf(await send(t.ep, binding, m));
      expect(first.status.state).toBe('TASK_STATE_COMPLETED');
      expect(throwOnce).toBe(false);
      const task = taskOf(await withTimeout(send(t.ep, binding, m), 5000, 'retry'));
      expect(task.id).toBe(first.id);
      expect(t.agent.executions).toHaveLength(1);
    });
  },
);

describe('docs/semantics.md §2: racing first attempts in process (the full 100-way races are in races.test.ts)', () => {
  it.each(BINDINGS)(
    '10 racing identical keyed sends over %s: one claim, one task, one run',
    async (binding) => {
      const t = makeServer();
      try {
        const m = keyedMessage('race');
        const answers = await Promise.all(Array.from({ length: 10 }, () => send(t.ep, binding, m)));
        const ids = new Set(answers.map((a) => taskOf(a).id));
        expect(ids.size).toBe(1);
        expect(t.agent.executions).toHaveLength(1);
        expect(t.memory.taskCount).toBe(1);
      } finally {
        await t.close();
      }
    },
  );
});
