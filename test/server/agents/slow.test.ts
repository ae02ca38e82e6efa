import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../src/protocol/model.js';
import {
  countEffects,
  createSlowAgent,
  EffectsLog,
  progressText,
  SLOW_DEFAULT_DELAY_MS,
  slowCard,
} from '../../../src/server/agents/index.js';
import { localCallContext } from '../../../src/server/call-context.js';
import {
  eventKinds,
  handlerFor,
  sendForTask,
  streamAll,
  taskOf,
  tempLogPath,
  texts,
  userMessage,
} from './harness.js';

const DELAY = 200;

describe('slow agent', () => {
  it('reports progress, then completes with the echo artifact after about delayMs', async () => {
    const handler = handlerFor(createSlowAgent({ delayMs: DELAY }));
    const started = Date.now();
    const events = await streamAll(handler, userMessage('slow-1', 'patience'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(DELAY - 20);
    expect(eventKinds(events)).toEqual([
      'task',
      'status:TASK_STATE_WORKING',
      'status:TASK_STATE_WORKING',
      'status:TASK_STATE_WORKING',
      'status:TASK_STATE_WORKING',
      'artifact',
      'status:TASK_STATE_COMPLETED',
    ]);
    const progress = events.flatMap((ev) =>
      'statusUpdate' in ev && ev.statusUpdate.status.state === 'TASK_STATE_WORKING'
        ? texts(ev.statusUpdate.status.message)
        : [],
    );
    expect(progress).toEqual(['progress 0%', 'progress 25%', 'progress 50%', 'progress 75%']);
    const art = events[5];
    if (!art || !('artifactUpdate' in art)) throw new Error('expected the artifact');
    expect(texts(art.artifactUpdate.artifact)).toEqual(['echo: patience']);
  });

  it('answers a blocking send only once the task is COMPLETED', async () => {
    const handler = handlerFor(createSlowAgent({ delayMs: DELAY }));
    const task = await sendForTask(handler, userMessage('slow-2', 'wait for me'));
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(texts(task.artifacts?.[0])).toEqual(['echo: wait for me']);
  });

  it('stops on cancel: the task stays CANCELED, nothing completes, one execution is logged', async () => {
    const path = tempLogPath();
    const handler = handlerFor(createSlowAgent({ delayMs: 300, effectsLog: new EffectsLog(path) }));
    const stream = await handler.sendStreamingMessage(
      { message: userMessage('slow-3', 'stop me') },
      localCallContext(),
    );
    const events: StreamResponse[] = [];
    let taskId = '';
    for await (const ev of stream) {
      events.push(ev);
      if ('task' in ev) taskId = ev.task.id;
      // Cancel mid-way: after the first progress report, well before the 300 ms are up.
      if ('statusUpdate' in ev && texts(ev.statusUpdate.status.message).includes(progressText(1))) {
        const canceled = await handler.cancelTask({ id: taskId }, localCallContext());
        expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
      }
    }
    expect(eventKinds(events).at(-1)).toBe('status:TASK_STATE_CANCELED');
    expect(eventKinds(events)).not.toContain('status:TASK_STATE_COMPLETED');
    expect(eventKinds(events)).not.toContain('artifact');

    await sleep(400); // past the agent's full delay: a worker that ignored the cancel would have written by now
    await handler.runner.drain();
    const after = await handler.getTask({ id: taskId }, localCallContext());
    expect(after.status.state).toBe('TASK_STATE_CANCELED');
    expect(after.artifacts).toBeUndefined();
    expect(countEffects(path)).toBe(1);
  });

  it('returns promptly when cancelled (the runner drains well before the delay)', async () => {
    const handler = handlerFor(createSlowAgent({ delayMs: 5000 }));
    const task = taskOf(
      await handler.sendMessage(
        { message: userMessage('slow-4', 'long'), configuration: { returnImmediately: true } },
        localCallContext(),
      ),
    );
    await handler.cancelTask({ id: task.id }, localCallContext());
    const t0 = Date.now();
    await handler.runner.drain();
    expect(Date.now() - t0).toBeLessThan(1000);
    expect((await handler.getTask({ id: task.id }, localCallContext())).status.state).toBe(
      'TASK_STATE_CANCELED',
    );
  });

  it('defaults to 500 ms and declares streaming', () => {
    expect(SLOW_DEFAULT_DELAY_MS).toBe(500);
    expect(slowCard.capabilities?.streaming).toBe(true);
  });
});
