/**
 * A leased child behind two replicas without sticky routing (docs/semantics.md §4 "Delegation", ADR 0044): the
 * child runs on the replica that took the send, while every renewing poll of its parent reaches the other one.
 * The renewals are kept in the shared store, so the running replica sees them and the child outlives its lease
 * as long as its parent is alive, on SQLite (two processes, one file) and on PostgreSQL (two processes, one
 * schema). When the parent dies, the child still cancels itself when the lease lapses.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELEGATE_TO_ENV, readEffects } from '../../src/cli/agents/index.js';
import { CHILD_LEASE_MS } from '../../src/cli/agents/delegating.js';
import type { Task } from '../../src/protocol/model.js';
import { startLink, type DelegationLink } from './delegation-link.js';
import { dropSchema, freshSchemaUrl, postgresAvailable } from './postgres-server.js';
import { cliBuilt, startServe, type ServeProcess } from './serve-process.js';
import { rpc, sendForTask, userMessage } from './wire.js';

/** Longer than the child's lease: the child finishes only if renewals taken by the other replica count. */
const CHILD_WORK_MS = CHILD_LEASE_MS + 3_000;

const pgUp = cliBuilt ? await postgresAvailable() : false;

interface Backend {
  readonly name: string;
  readonly skip: boolean;
  /** The `--store` argument both child replicas share, and how to drop it afterwards. */
  open(dir: string): { store: string; drop: () => Promise<void> };
}

const backends: Backend[] = [
  {
    name: 'SQLite',
    skip: !cliBuilt,
    open: (dir) => ({ store: `sqlite:${join(dir, 'children.db')}`, drop: () => Promise.resolve() }),
  },
  {
    name: 'PostgreSQL',
    skip: !pgUp,
    open: () => {
      const { url, schema } = freshSchemaUrl('a2a_child_replicas');
      return { store: url, drop: () => dropSchema(schema) };
    },
  },
];

describe.each(backends)('a leased child on two $name replicas', (backend) => {
  describe.skipIf(backend.skip)('with every poll routed to the replica not running it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-once-child-replicas-'));
    const childLog = join(dir, 'child-effects.log');
    let shared: { store: string; drop: () => Promise<void> };
    let runner: ServeProcess;
    let reader: ServeProcess;
    let link: DelegationLink;
    let parent: ServeProcess | undefined;

    const startChildReplica = () =>
      startServe(
        [
          '--agent',
          'delegating',
          '--store',
          shared.store,
          '--delay-ms',
          String(CHILD_WORK_MS),
          '--effects-log',
          childLog,
        ],
        dir,
      );

    async function startParent(): Promise<ServeProcess> {
      process.env[DELEGATE_TO_ENV] = link.url;
      try {
        return await startServe(['--agent', 'delegating', '--store', 'memory'], dir);
      } finally {
        delete process.env[DELEGATE_TO_ENV];
      }
    }

    beforeAll(async () => {
      shared = backend.open(dir);
      // One at a time: the first migrates the store, the second finds it ready.
      runner = await startChildReplica();
      reader = await startChildReplica();
      link = await startLink(runner.url, reader.url);
    }, 40_000);

    afterAll(async () => {
      await Promise.all([parent?.stop(), runner?.stop(), reader?.stop()]);
      await link?.close();
      await shared?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    const childRun = (text: string) => readEffects(childLog).find((e) => e.text === text);

    async function getTask(url: string, id: string): Promise<Task> {
      const body = (await rpc(url, 'GetTask', { id })) as { result?: Task; error?: unknown };
      if (!body.result) throw new Error(`GetTask ${id}: ${JSON.stringify(body.error)}`);
      return body.result;
    }

    async function until(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
      const end = Date.now() + timeoutMs;
      while (!(await check())) {
        if (Date.now() > end) throw new Error('condition not met in time');
        await new Promise((r) => setTimeout(r, 50));
      }
    }

    it('the child outlives its lease while the parent renews through the other replica, and completes', async () => {
      parent = await startParent();
      const text = 'renewed elsewhere';
      const before = link.renewals();
      const task = await sendForTask(parent.url, userMessage(text), { returnImmediately: true });
      await until(
        async () => (await getTask(parent!.url, task.id)).status.state === 'TASK_STATE_COMPLETED',
        CHILD_WORK_MS + 10_000,
      );
      const run = childRun(text)!;
      expect(run).toBeDefined();
      const child = await getTask(runner.url, run.taskId);
      expect(child.status.state).toBe('TASK_STATE_COMPLETED');
      // The child ran once, and every renewal went to the replica that was not running it.
      expect(readEffects(childLog).filter((e) => e.text === text)).toHaveLength(1);
      expect(link.renewals() - before).toBeGreaterThanOrEqual(3);
      expect(link.sends.filter((s) => s.includes(JSON.stringify(text)))).toHaveLength(1);
    }, 40_000);

    it('a child whose parent died still cancels itself when its lease lapses', async () => {
      parent ??= await startParent();
      const text = 'orphaned across replicas';
      await sendForTask(parent.url, userMessage(text), { returnImmediately: true });
      await until(() => childRun(text) !== undefined, 10_000);
      const childId = childRun(text)!.taskId;
      await parent.kill9();
      parent = undefined;
      await until(
        async () => (await getTask(reader.url, childId)).status.state === 'TASK_STATE_CANCELED',
        CHILD_LEASE_MS + 8_000,
      );
      const ended = await getTask(runner.url, childId);
      const said = (ended.status.message?.parts ?? []).map((p) => ('text' in p ? p.text : '')).join('');
      expect(said).toBe('Cancelled: the parent stopped renewing the delegation lease');
    }, 30_000);
  });
});
