/**
 * Two `a2a-once serve --grpc-port 0` processes on one PostgreSQL database: sends of one idempotency key split
 * between gRPC and JSON-RPC and across both replicas start one task, and the agent runs once (docs/guides/grpc.md,
 * docs/semantics.md §2). The key travels in the message metadata whatever the binding.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_METADATA_KEY, mintKey } from '../../src/idempotency/index.js';
import { countEffects } from '../../src/cli/agents/index.js';
import { GrpcTestClient } from '../server/grpc/grpc-test-client.js';
import { dropSchema, freshSchemaUrl, postgresAvailable } from './postgres-server.js';
import { cliBuilt, startServe, type ServeProcess } from './serve-process.js';
import { rpc } from './wire.js';

const pgUp = cliBuilt ? await postgresAvailable() : false;

async function grpcAddress(p: ServeProcess): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const m = /a2a-once serve: gRPC at (\S+)/.exec(p.stderr());
    if (m) return m[1]!;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no gRPC line on stderr:\n${p.stderr()}`);
}

describe.skipIf(!pgUp)('gRPC and JSON-RPC sends on two replicas of one PostgreSQL', () => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-once-grpc-replicas-'));
  const { url: storeUrl, schema } = freshSchemaUrl('a2a_grpc_replicas');
  const logA = join(dir, 'a.log');
  const logB = join(dir, 'b.log');
  let a: ServeProcess;
  let b: ServeProcess;
  const clients: GrpcTestClient[] = [];
  const executions = () => countEffects(logA) + countEffects(logB);

  beforeAll(async () => {
    const common = ['--agent', 'slow', '--delay-ms', '300', '--store', storeUrl, '--grpc-port', '0'];
    [a, b] = await Promise.all([
      startServe([...common, '--effects-log', logA]),
      startServe([...common, '--effects-log', logB]),
    ]);
    clients.push(new GrpcTestClient(await grpcAddress(a)), new GrpcTestClient(await grpcAddress(b)));
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await Promise.all([a?.stop(), b?.stop()]);
    await dropSchema(schema);
    rmSync(dir, { recursive: true, force: true });
  });

  it('100 concurrent sends of one key, gRPC and JSON-RPC on both replicas, make one task and one run', async () => {
    const before = executions();
    const key = mintKey();
    const message = {
      messageId: `m-${key}`,
      role: 'ROLE_USER',
      parts: [{ text: 'charge card 42' }],
      metadata: { [IDEMPOTENCY_METADATA_KEY]: key },
    };
    const ids = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        if (i % 2 === 0) {
          const { value } = await clients[(i / 2) % 2]!.unary('SendMessage', { message });
          return (value as { task: { id: string } }).task.id;
        }
        const answer = (await rpc(i % 4 === 1 ? a.url : b.url, 'SendMessage', { message })) as {
          result?: { task?: { id: string } };
          error?: unknown;
        };
        if (answer.error !== undefined) throw new Error(JSON.stringify(answer.error));
        return answer.result?.task?.id;
      }),
    );
    expect(new Set(ids).size).toBe(1);
    expect(ids[0]).toBeTypeOf('string');
    expect(executions() - before).toBe(1);
  }, 60_000);
});
