/**
 * Our client over gRPC against our own gRPC server (`serveGrpc`), in process on loopback: every operation, the
 * interface chosen from the card by preference (GRPC after JSON-RPC and HTTP+JSON unless preferred; a card that
 * lists only GRPC), the metadata it sends, and keyed sends replayed across bindings (ADR 0110).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient, ClientError, TransportError } from '../../../src/client/index.js';
import { grpcTransport } from '../../../src/client/grpc/index.js';
import type { AgentCard } from '../../../src/protocol/agent-card.js';
import type { StreamResponse } from '../../../src/protocol/model.js';
import {
  ExtensionSupportRequiredError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '../../../src/protocol/errors.js';
import { startOnceGrpcAgent, type OnceGrpcAgent } from './once-grpc-agent.js';

let agent: OnceGrpcAgent;
let card: AgentCard;
let client: A2AClient;
const grpc = grpcTransport({ insecure: true });

beforeAll(async () => {
  agent = await startOnceGrpcAgent();
  card = await agent.card();
  client = A2AClient.fromCard(card, {
    transports: [grpc],
    preferredBindings: ['GRPC'],
    attemptTimeoutMs: 5_000,
  });
});
afterAll(async () => {
  await agent.close();
});

async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const ev of stream) out.push(ev);
  return out;
}

describe('choosing the gRPC interface from the card (ADR 0110)', () => {
  it('ranks GRPC after JSON-RPC and HTTP+JSON without a preference, first with one', () => {
    expect(card.supportedInterfaces.map((i) => i.protocolBinding)).toEqual(['JSONRPC', 'HTTP+JSON', 'GRPC']);
    const byDefault = A2AClient.fromCard(card, { transports: [grpc] });
    expect(byDefault.endpoint.binding).toBe('JSONRPC');
    expect(client.endpoint).toEqual({ binding: 'GRPC', url: agent.grpcAddress, tenant: undefined });
    expect(client.peerHonoursKeys).toBe(true);
  });

  it('ignores GRPC interfaces without the transport, and refuses a GRPC-only card without it', () => {
    const grpcOnly = {
      ...card,
      supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolBinding === 'GRPC'),
    };
    expect(A2AClient.fromCard(card, { preferredBindings: ['GRPC'] }).endpoint.binding).toBe('JSONRPC');
    expect(() => A2AClient.fromCard(grpcOnly)).toThrow(ClientError);
    expect(A2AClient.fromCard(grpcOnly, { transports: [grpc] }).endpoint.binding).toBe('GRPC');
  });

  it('a card that lists only GRPC: every call goes over gRPC', async () => {
    const grpcOnly = {
      ...card,
      supportedInterfaces: card.supportedInterfaces.filter((i) => i.protocolBinding === 'GRPC'),
    };
    const only = A2AClient.fromCard(grpcOnly, { transports: [grpc] });
    const res = await only.send('only grpc');
    expect('task' in res && res.task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('a bare host:port is TLS by default (ADR 0111): against a plaintext server, nothing is sent', async () => {
    // By name: Node warns when a TLS server name is an IP address.
    const byName = agent.grpcAddress.replace('127.0.0.1', 'localhost');
    const tlsCard = { ...card, supportedInterfaces: [{ ...card.supportedInterfaces[2]!, url: byName }] };
    const tls = A2AClient.fromCard(tlsCard, {
      transports: [grpcTransport()],
      preferredBindings: ['GRPC'],
      retry: false,
    });
    const before = agent.runs.length;
    const err = await tls.send('over tls', { key: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).kind).toBe('not-sent');
    expect(agent.runs.length).toBe(before);
    // `http://` on the card says plaintext, whatever the option.
    const plain = {
      ...card,
      supportedInterfaces: [{ ...card.supportedInterfaces[2]!, url: `http://${agent.grpcAddress}` }],
    };
    const res = await A2AClient.fromCard(plain, { transports: [grpcTransport()] }).send(
      'plaintext by the card',
    );
    expect('task' in res).toBe(true);
  });

  it('fromEndpoint takes a gRPC address with the transport', async () => {
    const bare = A2AClient.fromEndpoint(agent.grpcAddress, { binding: 'GRPC', transports: [grpc] });
    const res = await bare.send('bare');
    expect('task' in res).toBe(true);
    expect(() => A2AClient.fromEndpoint(agent.grpcAddress, { binding: 'GRPC' })).toThrow(/transports option/);
  });
});

describe('every operation over gRPC against serveGrpc', () => {
  it('SendMessage: keyed (the card honours keys), run once, replayed on a resend with the same key', async () => {
    const before = agent.runs.length;
    const key = 'grpc-client-key-0001';
    const first = await client.send('keyed over grpc', { key });
    const again = await client.send('keyed over grpc', { key });
    if (!('task' in first) || !('task' in again)) throw new Error('expected tasks');
    expect(again.task.id).toBe(first.task.id);
    expect(agent.runs.length).toBe(before + 1);
    // The same key over JSON-RPC is the same send (the key lives in the message, whatever the binding).
    const viaJsonRpc = A2AClient.fromCard(card);
    const third = await viaJsonRpc.send('keyed over grpc', { key });
    expect('task' in third && third.task.id).toBe(first.task.id);
    expect(agent.runs.length).toBe(before + 1);
  });

  it('tells a send how it was admitted (the a2a-once-admission metadata)', async () => {
    const seen: string[] = [];
    const key = 'grpc-client-key-0002';
    await client.send('admission', { key, onAdmission: (o) => seen.push(o) });
    await client.send('admission', { key, onAdmission: (o) => seen.push(o) });
    expect(seen).toEqual(['created', 'replayed']);
  });

  it('SendMessage answered by a message, and a returnImmediately send', async () => {
    const res = await client.send('reply');
    expect('message' in res && res.message.parts).toEqual([{ text: 'a direct reply' }]);
    const held = await client.send('hold', { configuration: { returnImmediately: true } });
    if (!('task' in held)) throw new Error('expected a task');
    expect(held.task.status.state).not.toBe('TASK_STATE_COMPLETED');
    agent.release();
  });

  it('SendStreamingMessage: the task, its chunks, the end at COMPLETED', async () => {
    const events = await collect(client.sendStream('chunks:3'));
    expect('task' in events[0]!).toBe(true);
    const chunks = events.flatMap((e) => ('artifactUpdate' in e ? e.artifactUpdate.artifact.parts : []));
    expect(chunks).toEqual([{ text: 'chunk0' }, { text: 'chunk1' }, { text: 'chunk2' }]);
    const last = events.at(-1)!;
    expect('statusUpdate' in last && last.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('a stream ends at INPUT_REQUIRED, and one answered by a message ends with it', async () => {
    const asked = await collect(client.sendStream('ask'));
    const last = asked.at(-1)!;
    expect('statusUpdate' in last && last.statusUpdate.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const replied = await collect(client.sendStream('reply'));
    expect(replied.length).toBe(1);
    expect('message' in replied[0]!).toBe(true);
  });

  it('GetTask, ListTasks, and TaskNotFound', async () => {
    const res = await client.send('to get');
    if (!('task' in res)) throw new Error('expected a task');
    const task = await client.getTask(res.task.id, { historyLength: 1 });
    expect(task.id).toBe(res.task.id);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const list = await client.listTasks({ pageSize: 100 });
    expect(list.tasks.some((t) => t.id === res.task.id)).toBe(true);
    await expect(client.getTask('no-such-task')).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('SubscribeToTask and CancelTask on a running task; a finished task is not cancelable', async () => {
    const res = await client.send('hold', { configuration: { returnImmediately: true } });
    if (!('task' in res)) throw new Error('expected a task');
    const id = res.task.id;
    const sub = client.subscribe(id);
    const first = (await sub.next()).value as StreamResponse;
    expect('task' in first && first.task.id).toBe(id);
    const canceled = await client.cancelTask(id);
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    const rest = await collect(sub);
    const last = rest.at(-1);
    expect(last && 'statusUpdate' in last && last.statusUpdate.status.state).toBe('TASK_STATE_CANCELED');
    const done = await client.send('finished');
    if (!('task' in done)) throw new Error('expected a task');
    await expect(client.cancelTask(done.task.id)).rejects.toBeInstanceOf(TaskNotCancelableError);
  });

  it('subscribing to a finished task: UnsupportedOperation', async () => {
    const res = await client.send('done soon');
    if (!('task' in res)) throw new Error('expected a task');
    await expect(collect(client.subscribe(res.task.id))).rejects.toBeInstanceOf(UnsupportedOperationError);
  });

  it('push notification configs: create, get, list, delete', async () => {
    const res = await client.send('ask');
    if (!('task' in res)) throw new Error('expected a task');
    const taskId = res.task.id;
    const created = await client.createPushConfig({
      taskId,
      id: 'cfg-1',
      url: 'http://127.0.0.1:9/hook',
      token: 't',
    });
    expect(created.url).toBe('http://127.0.0.1:9/hook');
    expect((await client.getPushConfig(taskId, 'cfg-1')).id).toBe('cfg-1');
    expect((await client.listPushConfigs(taskId)).configs.map((c) => c.id)).toEqual(['cfg-1']);
    await client.deletePushConfig(taskId, 'cfg-1');
    expect((await client.listPushConfigs(taskId)).configs).toEqual([]);
    await expect(client.getPushConfig(taskId, 'cfg-1')).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('GetExtendedAgentCard', async () => {
    const extended = await client.getExtendedCard();
    expect(extended.name).toBe('grpc client test agent (extended)');
  });

  it('sends a2a-extensions: a required extension not requested is refused by reason, requested is served', async () => {
    const uri = 'https://example.com/ext/required/v1';
    const strict = await startOnceGrpcAgent({ cardExtensions: [{ uri, required: true }] });
    try {
      const strictCard = await strict.card();
      const without = A2AClient.fromCard(strictCard, { transports: [grpc], preferredBindings: ['GRPC'] });
      await expect(without.send('ext')).rejects.toBeInstanceOf(ExtensionSupportRequiredError);
      const withIt = A2AClient.fromCard(strictCard, {
        transports: [grpc],
        preferredBindings: ['GRPC'],
        extensions: [uri],
      });
      const res = await withIt.send('ext');
      expect('task' in res && res.task.status.state).toBe('TASK_STATE_COMPLETED');
    } finally {
      await strict.close();
    }
  });
});
