/**
 * Another principal's task answers exactly like a task that does not exist (A2A §7: MUST scope Get, Cancel,
 * Subscribe, List and push-config operations; not found and forbidden look the same), on both bindings, the SSE
 * paths too, on the memory, SQLite and PostgreSQL stores, checked rather than assumed: same status, same body,
 * and the same store reads for either case. A keyed send with another principal's key text claims a task of its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { A2AMethod } from '../../../src/protocol/constants.js';
import type { JsonObject } from '../../../src/protocol/model.js';
import { bearerTokens } from '../../../src/server/index.js';
import { openStore } from '../../../src/store/open-store.js';
import { PostgresTaskStore } from '../../../src/store/postgres/index.js';
import type { TaskStore } from '../../../src/store/task-store.js';
import { freshSchema, pgBackend } from '../../store-contract/pg-backend.js';
import {
  bearer,
  call,
  comparable,
  countedAgent,
  countingStore,
  message,
  reasonOf,
  startAuthServer,
  type AuthServer,
  type Binding,
} from './auth-fixtures.js';

const ALICE = bearer('alice-secret-token-1');
const BOB = bearer('bob-secret-token-22');
const dir = mkdtempSync(join(tmpdir(), 'a2a-once-isolation-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fresh real store of `kind`, and what removes it after the server closed it. */
async function freshStore(kind: string): Promise<{ store: TaskStore; drop: () => Promise<void> }> {
  if (kind !== 'postgres') {
    const store = await openStore(kind === 'memory' ? 'memory' : `sqlite:${join(dir, `${randomUUID()}.db`)}`);
    await (store as { migrate?: () => Promise<unknown> }).migrate?.();
    return { store, drop: () => Promise.resolve() };
  }
  const backend = await pgBackend();
  const schema = freshSchema();
  const store = new PostgresTaskStore({ pool: backend.pool(), schema, pollIntervalMs: 10 });
  await store.migrate();
  return {
    store,
    async drop() {
      await backend.pool().query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await backend.end();
    },
  };
}

describe.each(['memory', 'sqlite', 'postgres'])('on the %s store', (kind) => {
  let s: AuthServer;
  let counted: ReturnType<typeof countingStore>;
  let agent: ReturnType<typeof countedAgent>;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const fresh = await freshStore(kind);
    const inner = fresh.store;
    drop = fresh.drop;
    counted = countingStore(inner);
    agent = countedAgent();
    s = await startAuthServer(
      {
        authenticate: bearerTokens({
          tokens: [
            { token: 'alice-secret-token-1', principal: 'alice', tenants: ['', 'acme'] },
            { token: 'bob-secret-token-22', principal: 'bob', tenants: ['', 'acme'] },
          ],
        }),
      },
      { store: counted.store, agent: agent.agent, recovery: false },
    );
  });
  afterAll(async () => {
    await s.close();
    await drop();
  });

  describe.each(['jsonrpc', 'rest'] as Binding[])('over %s', (binding) => {
    for (const tenant of ['', 'acme']) {
      it(`tenant '${tenant}': every operation on alice's task answers bob as if it did not exist`, async () => {
        const t = tenant === '' ? {} : { tenant };
        const created = await call(
          s.url,
          binding,
          'SendMessage',
          { ...t, message: message('wait for me') },
          ALICE,
        );
        expect(created.status).toBe(200);
        const body = created.json as { result?: { task: { id: string } }; task?: { id: string } };
        const taskId = (body.result ?? body).task!.id;
        const push = await call(
          s.url,
          binding,
          'CreateTaskPushNotificationConfig',
          { ...t, taskId, id: 'cfg-1', url: 'http://127.0.0.1:9/hook' },
          ALICE,
        );
        expect(push.status).toBeLessThan(300);

        const missing = randomUUID();
        const fixedMessage = (id: string) =>
          message('follow up', { taskId: id, messageId: 'same-message-id' });
        const probes: [A2AMethod, (id: string) => JsonObject][] = [
          ['GetTask', (id) => ({ ...t, id })],
          ['CancelTask', (id) => ({ ...t, id })],
          ['SubscribeToTask', (id) => ({ ...t, id })],
          [
            'CreateTaskPushNotificationConfig',
            (id) => ({ ...t, taskId: id, id: 'cfg-2', url: 'http://127.0.0.1:9/x' }),
          ],
          ['GetTaskPushNotificationConfig', (id) => ({ ...t, taskId: id, id: 'cfg-1' })],
          ['ListTaskPushNotificationConfigs', (id) => ({ ...t, taskId: id })],
          ['DeleteTaskPushNotificationConfig', (id) => ({ ...t, taskId: id, id: 'cfg-1' })],
          ['SendMessage', (id) => ({ ...t, message: fixedMessage(id) })],
          ['SendStreamingMessage', (id) => ({ ...t, message: fixedMessage(id) })],
        ];
        for (const [method, params] of probes) {
          const before = counted.log.length;
          const theirs = await call(s.url, binding, method, params(taskId), BOB);
          const readsTheirs = counted.log
            .slice(before)
            .filter((c) => c.owner === 'bob')
            .map((c) => c.method);
          const mid = counted.log.length;
          const none = await call(s.url, binding, method, params(missing), BOB);
          const readsNone = counted.log
            .slice(mid)
            .filter((c) => c.owner === 'bob')
            .map((c) => c.method);
          expect(reasonOf(theirs), method).toBe('TASK_NOT_FOUND');
          expect(comparable(theirs), method).toBe(comparable(none));
          expect(readsTheirs, method).toEqual(readsNone);
        }

        const bobsList = await call(s.url, binding, 'ListTasks', t, BOB);
        expect(bobsList.status).toBe(200);
        expect(bobsList.text).not.toContain(taskId);
        const alicesList = await call(s.url, binding, 'ListTasks', t, ALICE);
        expect(alicesList.text).toContain(taskId);

        // Alice's task is as she left it: still waiting for input, its push config still there.
        const still = await call(s.url, binding, 'GetTask', { ...t, id: taskId }, ALICE);
        expect(still.text).toContain('TASK_STATE_INPUT_REQUIRED');
        const cfg = await call(
          s.url,
          binding,
          'GetTaskPushNotificationConfig',
          { ...t, taskId, id: 'cfg-1' },
          ALICE,
        );
        expect(cfg.status).toBe(200);
      });
    }

    it("a keyed send with alice's key text gets bob a task of his own; each agent runs once", async () => {
      const key = `shared-key-text-${binding}-${randomUUID()}`;
      const runsBefore = { alice: agent.runs.get('alice') ?? 0, bob: agent.runs.get('bob') ?? 0 };
      const a = await call(s.url, binding, 'SendMessage', { message: message('hello', {}, key) }, ALICE);
      const b = await call(s.url, binding, 'SendMessage', { message: message('hello', {}, key) }, BOB);
      const idOf = (x: typeof a) => {
        const j = x.json as { result?: { task: { id: string } }; task?: { id: string } };
        return (j.result ?? j).task!.id;
      };
      expect(idOf(a)).not.toBe(idOf(b));
      expect(b.text).toContain('done for bob');
      expect(b.text).not.toContain('done for alice');
      expect((agent.runs.get('alice') ?? 0) - runsBefore.alice).toBe(1);
      expect((agent.runs.get('bob') ?? 0) - runsBefore.bob).toBe(1);
    });
  });
});
