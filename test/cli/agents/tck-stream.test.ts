import { describe, expect, it } from 'vitest';
import type { StreamResponse, TaskArtifactUpdateEvent } from '../../../src/protocol/model.js';
import {
  createTckAgent,
  TCK_DELAY_MS,
  TCK_FILE_TEXT,
  TCK_V03_RESUBSCRIBE_MS,
} from '../../../src/cli/agents/index.js';
import { localCallContext } from '../../../src/server/call-context.js';
import { eventKinds, handlerFor, sendForTask, streamAll, taskOf, texts, userMessage } from './harness.js';

const handler = handlerFor(createTckAgent());

function artifactUpdates(events: readonly StreamResponse[]): TaskArtifactUpdateEvent[] {
  return events.flatMap((ev) => ('artifactUpdate' in ev ? [ev.artifactUpdate] : []));
}

const LIFECYCLE = ['task', 'status:TASK_STATE_WORKING', 'artifact', 'status:TASK_STATE_COMPLETED'];

describe('tck agent (streams)', () => {
  it.each([
    ['tck-stream-001', 'Stream hello from TCK'],
    ['tck-stream-003', 'Stream task lifecycle'],
    ['tck-stream-ordering-001', 'Ordered output'],
    ['tck-stream-artifact-text', 'Streamed text content'],
  ])('%s streams task, WORKING, the text artifact, COMPLETED', async (prefix, text) => {
    const events = await streamAll(handler, userMessage(`${prefix}-x`, 'hi'));
    expect(eventKinds(events)).toEqual(LIFECYCLE);
    const [update] = artifactUpdates(events);
    expect(texts(update?.artifact)).toEqual([text]);
    const first = events[0];
    if (!first || !('task' in first)) throw new Error('expected the task first');
    expect(update?.taskId).toBe(first.task.id);
    expect(update?.contextId).toBe(first.task.contextId);
  });

  it('tck-stream-002 streams the task, then COMPLETED only', async () => {
    const events = await streamAll(handler, userMessage('tck-stream-002-x', 'hi'));
    expect(eventKinds(events)).toEqual(['task', 'status:TASK_STATE_COMPLETED']);
  });

  it('tck-stream-artifact-file streams a raw file artifact', async () => {
    const events = await streamAll(handler, userMessage('tck-stream-artifact-file-x', 'hi'));
    expect(eventKinds(events)).toEqual(LIFECYCLE);
    const part = artifactUpdates(events)[0]?.artifact.parts[0];
    expect(part).toMatchObject({ filename: 'output.txt', mediaType: 'text/plain' });
    if (!part || !('raw' in part)) throw new Error('expected a raw part');
    expect(Buffer.from(part.raw, 'base64').toString('utf8')).toBe(TCK_FILE_TEXT);
  });

  it('tck-stream-artifact-chunked streams two chunks of one artifact that fold into one', async () => {
    const events = await streamAll(handler, userMessage('tck-stream-artifact-chunked-x', 'hi'));
    expect(eventKinds(events)).toEqual([
      'task',
      'status:TASK_STATE_WORKING',
      'artifact',
      'artifact',
      'status:TASK_STATE_COMPLETED',
    ]);
    const [c1, c2] = artifactUpdates(events);
    expect(texts(c1?.artifact)).toEqual(['chunk-1 ']);
    expect(c1?.lastChunk).toBeUndefined();
    expect(texts(c2?.artifact)).toEqual(['chunk-2']);
    expect(c2).toMatchObject({ append: true, lastChunk: true });
    expect(c2?.artifact.artifactId).toBe(c1?.artifact.artifactId);

    const first = events[0];
    if (!first || !('task' in first)) throw new Error('expected the task first');
    const folded = await handler.getTask({ id: first.task.id }, localCallContext());
    expect(folded.artifacts).toHaveLength(1);
    expect(folded.artifacts?.[0]?.artifactId).toBe(c1?.artifact.artifactId);
    expect(texts(folded.artifacts?.[0])).toEqual(['chunk-1 ', 'chunk-2']);
  });

  it('tck-message-response streams exactly one message', async () => {
    const events = await streamAll(handler, userMessage('tck-message-response-x', 'hi'));
    expect(eventKinds(events)).toEqual(['message']);
    const only = events[0];
    if (!only || !('message' in only)) throw new Error('expected a message');
    expect(texts(only.message)).toEqual(['Direct message response']);
  });

  it('tck-input-required ends the stream at INPUT_REQUIRED', async () => {
    const events = await streamAll(handler, userMessage('tck-input-required-x', 'hi'));
    expect(eventKinds(events)).toEqual(['task', 'status:TASK_STATE_INPUT_REQUIRED']);
  });
});

describe('tck-delayed-complete', () => {
  it(
    'works for about 2 s, then completes with "Done after delay"',
    async () => {
      const started = Date.now();
      const events = await streamAll(handler, userMessage('tck-delayed-complete-x', 'hi'));
      expect(Date.now() - started).toBeGreaterThanOrEqual(TCK_DELAY_MS - 50);
      expect(eventKinds(events)).toEqual([
        'task',
        'status:TASK_STATE_WORKING',
        'status:TASK_STATE_COMPLETED',
      ]);
      const last = events.at(-1);
      if (!last || !('statusUpdate' in last)) throw new Error('expected a status update last');
      expect(texts(last.statusUpdate.status.message)).toEqual(['Done after delay']);
    },
    TCK_DELAY_MS + 5000,
  );

  it('stops early when cancelled and never completes', async () => {
    const res = await handler.sendMessage(
      { message: userMessage('tck-delayed-complete-y', 'hi'), configuration: { returnImmediately: true } },
      localCallContext(),
    );
    const task = taskOf(res);
    expect(task.status.state).toBe('TASK_STATE_WORKING');
    const canceled = await handler.cancelTask({ id: task.id }, localCallContext());
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    // The agent stopped on the abort: the runner has nothing left to wait for.
    const t0 = Date.now();
    await handler.runner.drain();
    expect(Date.now() - t0).toBeLessThan(TCK_DELAY_MS / 2);
    const after = await handler.getTask({ id: task.id }, localCallContext());
    expect(after.status.state).toBe('TASK_STATE_CANCELED');
    expect(after.history?.some((m) => texts(m).includes('Done after delay'))).toBe(false);
  });
});

describe('tck agent continuation over a blocking send', () => {
  it('keeps the same context across the two turns', async () => {
    const first = await sendForTask(handler, userMessage('tck-input-required-c', 'start'));
    const next = await sendForTask(
      handler,
      userMessage('tck-complete-task-c', 'go', { taskId: first.id, contextId: first.contextId }),
    );
    expect(next.contextId).toBe(first.contextId);
    expect(next.history?.filter((m) => m.role === 'ROLE_USER').map((m) => m.messageId)).toEqual([
      'tck-input-required-c',
      'tck-complete-task-c',
    ]);
  });
});

describe('the v0.3 kit messages (docs/guides/v03-peers.md, "Conformance")', () => {
  it('a test- message leaves its task open: follow-ups are taken, history grows, and it can be cancelled', async () => {
    const first = await sendForTask(handler, userMessage('test-history-create-message-id-1', 'start'));
    expect(first.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const next = await sendForTask(
      handler,
      userMessage('test-history-message-1-x', 'more', { taskId: first.id, contextId: first.contextId }),
    );
    expect(next.id).toBe(first.id);
    expect(next.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(next.history?.filter((m) => m.role === 'ROLE_USER')).toHaveLength(2);
    const canceled = await handler.cancelTask({ id: first.id }, localCallContext());
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    // Ids from the kit's generator (`<case>-message-id-<uuid>`) are the kit's too; other ids still complete.
    const generated = await sendForTask(handler, userMessage('cancel-test-message-id-1', 'go'));
    expect(generated.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const plain = await sendForTask(handler, userMessage('plain-message-2', 'go'));
    expect(plain.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it(
    'test-resubscribe-message-id works for twice the kit streaming timeout, then completes',
    async () => {
      const res = await handler.sendMessage(
        {
          message: userMessage('test-resubscribe-message-id-1', 'hi'),
          configuration: { returnImmediately: true },
        },
        localCallContext(),
      );
      const task = taskOf(res);
      expect(task.status.state).toBe('TASK_STATE_WORKING');
      const started = Date.now();
      const events: StreamResponse[] = [];
      for await (const e of await handler.subscribeToTask({ id: task.id }, localCallContext()))
        events.push(e);
      expect(Date.now() - started).toBeGreaterThanOrEqual(TCK_V03_RESUBSCRIBE_MS - 500);
      const last = events.at(-1);
      if (!last || !('statusUpdate' in last)) throw new Error('expected a status update last');
      expect(last.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    },
    TCK_V03_RESUBSCRIBE_MS + 5000,
  );
});
