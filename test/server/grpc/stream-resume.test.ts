/**
 * gRPC streams resumed by `last-event-id` metadata (ADR 0125): the response metadata carries the stream's base
 * sequence (`a2a-once-stream-seq`), so a client numbers each event by counting; a SubscribeToTask with
 * `last-event-id: L` gets exactly the log's events after L, replayed then live, and a bad id is refused
 * INVALID_ARGUMENT with LAST_EVENT_ID_INVALID.
 */
import type { Metadata } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAM_SEQ_METADATA } from '../../../src/protocol/event-sequence.js';
import { startGrpcFixture, userMessage, type GrpcFixture } from './grpc-fixture.js';
import { failureOf, V1, type GrpcFailure } from './grpc-test-client.js';
import type { ServiceError } from '@grpc/grpc-js';

let f: GrpcFixture;
beforeAll(async () => {
  f = await startGrpcFixture();
});
afterAll(() => f.close());

type Event = Record<string, { status?: { state: string } }>;

/** A held task: WORKING is event 1; the release completes it as event 2. */
async function heldTask(): Promise<string> {
  const sent = await f.client.unary('SendMessage', {
    message: userMessage('hold'),
    configuration: { returnImmediately: true },
  });
  const id = (sent.value as { task: { id: string } }).task.id;
  for (let i = 0; i < 100; i++) {
    const got = await f.client.unary('GetTask', { id });
    if ((got.value as { status: { state: string } }).status.state === 'TASK_STATE_WORKING') return id;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the task never started working');
}

/** Subscribes; resolves with the response's base sequence and the events, releasing the agent after `releaseAfter`. */
function subscribe(
  id: string,
  md: Record<string, string>,
  releaseAfter = Number.POSITIVE_INFINITY,
): Promise<{ seq: string | undefined; events: Event[] }> {
  const call = f.client.open('SubscribeToTask', { id }, { ...V1, ...md });
  let seq: string | undefined;
  const events: Event[] = [];
  return new Promise((resolve, reject) => {
    call.on('metadata', (m: Metadata) => (seq = m.get(STREAM_SEQ_METADATA)[0]?.toString()));
    call.on('data', (e: Event) => {
      events.push(e);
      if (events.length === releaseAfter) f.release();
    });
    call.on('error', (err: ServiceError) => reject(failureOf(err)));
    call.on('end', () => resolve({ seq, events }));
  });
}

const kinds = (events: Event[]) =>
  events.map((e) => (e.task ? 'task' : `status:${e.statusUpdate?.status?.state ?? '?'}`));

describe('gRPC: resuming a stream', () => {
  it('sends the base sequence of a subscription: its snapshot is the task at that sequence', async () => {
    const id = await heldTask();
    const { seq, events } = await subscribe(id, {}, 1);
    expect(seq).toBe('1');
    expect(kinds(events)).toEqual(['task', 'status:TASK_STATE_COMPLETED']);
  });

  it('replays the events after last-event-id with no snapshot, then goes on live', async () => {
    const id = await heldTask();
    const { seq, events } = await subscribe(id, { 'last-event-id': '0' }, 1);
    expect(seq).toBe('0');
    expect(kinds(events)).toEqual(['status:TASK_STATE_WORKING', 'status:TASK_STATE_COMPLETED']);
  });

  it('replays the rest of a task that finished meanwhile', async () => {
    const id = await heldTask();
    f.release();
    for (let i = 0; i < 100; i++) {
      const got = await f.client.unary('GetTask', { id });
      if ((got.value as { status: { state: string } }).status.state === 'TASK_STATE_COMPLETED') break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const { seq, events } = await subscribe(id, { 'last-event-id': '1' });
    expect(seq).toBe('1');
    expect(kinds(events)).toEqual(['status:TASK_STATE_COMPLETED']);
  });

  it.each([['abc'], ['-1'], ['1.0']])('refuses last-event-id %j as INVALID_ARGUMENT', async (v) => {
    const id = await heldTask();
    const failure = (await subscribe(id, { 'last-event-id': v }).catch((e: unknown) => e)) as GrpcFailure;
    expect(failure.code).toBe(3);
    expect(JSON.stringify(failure.status)).toContain('LAST_EVENT_ID_INVALID');
    f.release();
  });

  it('refuses a last-event-id past the task last event', async () => {
    const id = await heldTask();
    const failure = (await subscribe(id, { 'last-event-id': '7' }).catch((e: unknown) => e)) as GrpcFailure;
    expect(failure.code).toBe(3);
    expect(JSON.stringify(failure.status)).toContain('"latestEventId":"1"');
    f.release();
  });
});
