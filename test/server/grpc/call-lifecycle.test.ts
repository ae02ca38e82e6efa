/**
 * A gRPC call's life (ADR 0106): its deadline, a client cancelling mid-stream (everything it held is freed, the
 * task runs on), the message size limit, the 100-way race of one idempotency key (one task, one run) and a
 * retry's replay following the retry's own mode.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_EXTENSION_URI, IDEMPOTENCY_METADATA_KEY } from '../../../src/idempotency/index.js';
import { MemoryTaskStore } from '../../../src/store/memory/index.js';
import type { Scope } from '../../../src/store/scope.js';
import type { StoredEvent } from '../../../src/store/records.js';
import { startGrpcFixture, userMessage, type GrpcFixture } from './grpc-fixture.js';
import { GrpcFailure, GrpcTestClient } from './grpc-test-client.js';

/** A memory store that counts the event watches open (one per stream following a task). */
class CountingStore extends MemoryTaskStore {
  open = 0;
  override watch(
    scope: Scope,
    taskId: string,
    afterSeq: number,
    signal: AbortSignal,
  ): AsyncIterable<StoredEvent> {
    this.open++;
    signal.addEventListener('abort', () => this.open--, { once: true });
    return super.watch(scope, taskId, afterSeq, signal);
  }
}

const store = new CountingStore();
let f: GrpcFixture;
beforeAll(async () => {
  f = await startGrpcFixture({ store }, { maxReceiveMessageBytes: 64 * 1024 });
});
afterAll(() => f.close());

type Task = { id: string; status: { state: string } };

async function until(check: () => boolean | Promise<boolean>, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
}

function keyed(text: string, key: string, messageId = `m-${key}`) {
  return userMessage(text, {
    messageId,
    metadata: { [IDEMPOTENCY_METADATA_KEY]: key },
    extensions: [IDEMPOTENCY_EXTENSION_URI],
  });
}

describe('gRPC call lifecycle', () => {
  it("the call's deadline ends a blocking wait (DEADLINE_EXCEEDED); the task runs on", async () => {
    const key = `grpc-deadline-${Date.now()}`;
    const fail = await f.client
      .unary('SendMessage', { message: keyed('hold', key) }, undefined, { deadline: 300 })
      .catch((e: unknown) => e);
    expect((fail as GrpcFailure).code).toBe(4);
    const retry = await f.client.unary('SendMessage', {
      message: keyed('hold', key),
      configuration: { returnImmediately: true },
    });
    const task = (retry.value as { task: Task }).task;
    expect(task.status.state).toBe('TASK_STATE_WORKING');
    f.release();
    await until(async () => {
      const t = (await f.client.unary('GetTask', { id: task.id })).value as Task;
      return t.status.state === 'TASK_STATE_COMPLETED';
    });
  });

  it('a client that cancels mid-stream frees its watch; the task runs on to its end', async () => {
    const before = store.open;
    const call = f.client.open('SendStreamingMessage', { message: userMessage('hold') });
    const first = await new Promise<{ task: Task }>((resolve) => call.once('data', resolve));
    await until(() => store.open === before + 1);
    call.on('error', () => undefined); // CANCELLED, as asked
    call.cancel();
    await until(() => store.open === before);
    f.release();
    await until(async () => {
      const t = (await f.client.unary('GetTask', { id: first.task.id })).value as Task;
      return t.status.state === 'TASK_STATE_COMPLETED';
    });
  });

  it('a client that goes away mid-subscription frees its watch', async () => {
    const sent = await f.client.unary('SendMessage', {
      message: userMessage('hold'),
      configuration: { returnImmediately: true },
    });
    const id = (sent.value as { task: Task }).task.id;
    const before = store.open;
    const other = new GrpcTestClient(f.grpc.address);
    const call = other.open('SubscribeToTask', { id });
    call.on('error', () => undefined);
    await new Promise((resolve) => call.once('data', resolve));
    await until(() => store.open === before + 1);
    other.close();
    call.cancel();
    await until(() => store.open === before);
    f.release();
  });

  it('a message above maxReceiveMessageBytes is refused RESOURCE_EXHAUSTED, and nothing runs', async () => {
    const runs = f.runs();
    const fail = await f.client
      .unary('SendMessage', { message: userMessage('x'.repeat(80 * 1024)) })
      .catch((e: unknown) => e);
    expect(fail).toBeInstanceOf(GrpcFailure);
    expect((fail as GrpcFailure).code).toBe(8);
    expect((fail as GrpcFailure).message).toMatch(/larger than max/i);
    expect(f.runs()).toBe(runs);
  });

  it('100 racing sends of one key over gRPC make one task and one run', async () => {
    const key = `grpc-race-${Date.now()}-key`;
    const runs = f.runs();
    const clients = Array.from({ length: 4 }, () => new GrpcTestClient(f.grpc.address));
    try {
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          clients[i % clients.length]!.unary('SendMessage', { message: keyed('race', key) }),
        ),
      );
      const ids = new Set(answers.map((a) => (a.value as { task: Task }).task.id));
      expect(ids.size).toBe(1);
      expect(f.runs()).toBe(runs + 1);
      const admissions = answers.map((a) => a.metadata.get('a2a-once-admission')[0]);
      expect(admissions.filter((a) => a === 'created')).toHaveLength(1);
    } finally {
      for (const c of clients) c.close();
    }
  });

  it('a streaming retry of a streamed keyed send attaches to its stream; a unary retry gets the task', async () => {
    const key = `grpc-replay-${Date.now()}-key`;
    const runs = f.runs();
    const first = f.client.open('SendStreamingMessage', { message: keyed('hold', key) });
    const firstEvents: unknown[] = [];
    const firstEnd = new Promise<void>((resolve, reject) => {
      first.on('data', (e: unknown) => firstEvents.push(e));
      first.on('end', resolve);
      first.on('error', reject);
    });
    await until(() => firstEvents.length > 0);
    const id = (firstEvents[0] as { task: Task }).task.id;
    const replay = f.client.stream('SendStreamingMessage', { message: keyed('hold', key) });
    const unary = await f.client.unary('SendMessage', {
      message: keyed('hold', key),
      configuration: { returnImmediately: true },
    });
    expect((unary.value as { task: Task }).task.id).toBe(id);
    expect(unary.metadata.get('a2a-once-admission')).toEqual(['replayed']);
    await until(() => store.open >= 2);
    f.release();
    const replayed = (await replay) as Record<string, unknown>[];
    await firstEnd;
    expect((replayed[0] as { task: Task }).task.id).toBe(id);
    expect(
      (replayed.at(-1) as { statusUpdate: { status: { state: string } } }).statusUpdate.status.state,
    ).toBe('TASK_STATE_COMPLETED');
    expect(f.runs()).toBe(runs + 1);
  });
});
