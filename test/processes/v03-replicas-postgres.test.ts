/**
 * Two `a2a-once serve --compat v0.3` processes on one PostgreSQL database: v0.3 peers and v1.0 peers sending one
 * idempotency key, split across both replicas and both versions, start one task and the agent runs once
 * (docs/guides/v03-peers.md "Keys", docs/semantics.md §1–§2). The v0.3 retry of a send whose answer was lost
 * replays on the other replica the task the v1.0 attempt created.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_METADATA_KEY, mintKey } from '../../src/idempotency/index.js';
import type { Task } from '../../src/protocol/model.js';
import { countEffects } from '../../src/cli/agents/index.js';
import { dropSchema, freshSchemaUrl, postgresAvailable } from './postgres-server.js';
import { cliBuilt, startServe, type ServeProcess } from './serve-process.js';
import { rpc } from './wire.js';

const pgUp = cliBuilt ? await postgresAvailable() : false;
if (!cliBuilt)
  console.warn('NOTICE: dist/cli/bin.js is missing (run npm run build); skipping the v0.3 replica tests.');

interface Answer {
  readonly result?: { id?: string; kind?: string; status?: { state?: string }; task?: Task };
  readonly error?: { code: number; message: string };
}

/** A v0.3 `message/send` of `text` under `key`, as a v0.3 peer writes it (no A2A-Version header). */
function v03Send(url: string, key: string, text: string, signal?: AbortSignal): Promise<Answer> {
  const message = {
    kind: 'message',
    messageId: `m-${key}`,
    role: 'user',
    parts: [{ kind: 'text', text }],
    metadata: { [IDEMPOTENCY_METADATA_KEY]: key },
  };
  return fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message } }),
    signal,
  }).then((r) => r.json() as Promise<Answer>);
}

/** The v1.0 `SendMessage` of the same message. */
function v1Send(url: string, key: string, text: string, signal?: AbortSignal): Promise<Answer> {
  const message = {
    messageId: `m-${key}`,
    role: 'ROLE_USER',
    parts: [{ text }],
    metadata: { [IDEMPOTENCY_METADATA_KEY]: key },
  };
  return rpc(url, 'SendMessage', { message }, signal) as Promise<Answer>;
}

/** The task id of either version's answer. */
function taskIdOf(answer: Answer): string | undefined {
  if (answer.error !== undefined)
    throw new Error(`send refused: ${answer.error.code} ${answer.error.message}`);
  return answer.result?.kind === 'task' ? answer.result.id : answer.result?.task?.id;
}

describe.skipIf(!pgUp)('v0.3 and v1.0 peers on two replicas of one PostgreSQL', () => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-once-v03-replicas-'));
  const { url: storeUrl, schema } = freshSchemaUrl('a2a_v03_replicas');
  const logA = join(dir, 'a.log');
  const logB = join(dir, 'b.log');
  let a: ServeProcess;
  let b: ServeProcess;
  const executions = () => countEffects(logA) + countEffects(logB);

  beforeAll(async () => {
    const common = ['--agent', 'slow', '--delay-ms', '600', '--store', storeUrl, '--compat', 'v0.3'];
    a = await startServe([...common, '--effects-log', logA]);
    b = await startServe([...common, '--effects-log', logB]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await dropSchema(schema);
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs 200 concurrent sends of one key, v0.3 and v1.0 on both replicas, once', async () => {
    const before = executions();
    const key = mintKey();
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => {
        const url = i % 2 === 0 ? a.url : b.url;
        return i % 4 < 2 ? v03Send(url, key, 'charge card 42') : v1Send(url, key, 'charge card 42');
      }),
    );
    const ids = new Set(answers.map(taskIdOf));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toBeTypeOf('string');
    expect(executions() - before).toBe(1);
  }, 60_000);

  it('replays on replica B, for a v0.3 retry, the task a lost v1.0 attempt created on replica A', async () => {
    const before = executions();
    const key = mintKey();
    // The first attempt's answer is lost: the caller gives up after 100 ms while A keeps working.
    await expect(v1Send(a.url, key, 'ship order 7', AbortSignal.timeout(100))).rejects.toThrow();
    const retried = await v03Send(b.url, key, 'ship order 7');
    expect(retried.error).toBeUndefined();
    expect(retried.result?.kind).toBe('task');
    expect(retried.result?.status?.state).toBe('completed');
    const onA = (await rpc(a.url, 'GetTask', { id: retried.result?.id })) as { result?: Task };
    expect(onA.result?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(executions() - before).toBe(1);
  }, 30_000);
});
