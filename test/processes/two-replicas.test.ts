/**
 * Two `a2a-once serve` processes on one PostgreSQL database behave as one server for every
 * keyed send: one execution, one task, whichever replica a retry lands on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintKey, setKey } from '../../src/idempotency/index.js';
import type { StreamResponse, Task } from '../../src/protocol/model.js';
import { countEffects } from '../../src/cli/agents/index.js';
import { dropSchema, freshSchemaUrl, postgresAvailable } from './postgres-server.js';
import { cliBuilt, startServe, type ServeProcess } from './serve-process.js';
import { rpc, rpcStream, sendForTask, userMessage } from './wire.js';

const pgUp = cliBuilt ? await postgresAvailable() : false;
if (!cliBuilt)
  console.warn('NOTICE: dist/cli/bin.js is missing (run npm run build); skipping replica tests.');

describe.skipIf(!pgUp)('two replicas on one PostgreSQL', () => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-once-replicas-'));
  const { url: storeUrl, schema } = freshSchemaUrl('a2a_replicas');
  const logA = join(dir, 'a.log');
  const logB = join(dir, 'b.log');
  let a: ServeProcess;
  let b: ServeProcess;
  const executions = () => countEffects(logA) + countEffects(logB);

  beforeAll(async () => {
    a = await startServe([
      '--agent',
      'slow',
      '--delay-ms',
      '600',
      '--store',
      storeUrl,
      '--effects-log',
      logA,
    ]);
    b = await startServe([
      '--agent',
      'slow',
      '--delay-ms',
      '600',
      '--store',
      storeUrl,
      '--effects-log',
      logB,
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await dropSchema(schema);
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs 200 concurrent identical keyed sends split across both replicas once', async () => {
    const before = executions();
    const message = setKey(userMessage('charge card 42'), mintKey());
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => sendForTask(i % 2 === 0 ? a.url : b.url, message)),
    );
    const ids = new Set(answers.map((t) => t.id));
    expect(ids.size).toBe(1);
    expect(answers.every((t) => t.status.state === 'TASK_STATE_COMPLETED')).toBe(true);
    expect(executions() - before).toBe(1);
  }, 60_000);

  it('replays on replica B the task a lost first attempt created on replica A', async () => {
    const before = executions();
    const message = setKey(userMessage('ship order 7'), mintKey());
    // The first attempt's answer is lost: the client gives up after 100 ms, A keeps working.
    await expect(rpc(a.url, 'SendMessage', { message }, AbortSignal.timeout(100))).rejects.toThrow();
    const retried = await sendForTask(b.url, message);
    expect(retried.status.state).toBe('TASK_STATE_COMPLETED');
    const onA = (await rpc(a.url, 'GetTask', { id: retried.id })) as { result?: Task };
    expect(onA.result?.id).toBe(retried.id);
    expect(countEffects(logA) + countEffects(logB) - before).toBe(1);
  }, 30_000);

  it("streams replica A's live events to a streaming retry on replica B", async () => {
    const before = executions();
    const message = setKey(userMessage('render report'), mintKey());
    const first = rpcStream(a.url, 'SendStreamingMessage', { message });
    const firstEvent: IteratorResult<StreamResponse> = await first.next();
    const head = firstEvent.done ? undefined : firstEvent.value;
    const taskId = head && 'task' in head ? head.task.id : undefined;
    expect(taskId).toBeDefined();
    const seen: StreamResponse[] = [];
    for await (const ev of rpcStream(b.url, 'SendStreamingMessage', { message })) seen.push(ev);
    await first.return(undefined);
    expect(seen[0] && 'task' in seen[0] ? seen[0].task.id : undefined).toBe(taskId);
    const live = seen.slice(1);
    expect(live.some((e) => 'artifactUpdate' in e)).toBe(true);
    const last = live[live.length - 1];
    expect(last && 'statusUpdate' in last ? last.statusUpdate.status.state : undefined).toBe(
      'TASK_STATE_COMPLETED',
    );
    expect(executions() - before).toBe(1);
  }, 30_000);
});
