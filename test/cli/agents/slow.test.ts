import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../src/protocol/model.js';
import {
  countEffects,
  createSlowAgent,
  EffectsLog,
  progressText,
  readEffects,
  SLOW_DEFAULT_DELAY_MS,
  SLOW_EFFECT_STEP,
  slowCard,
} from '../../../src/cli/agents/index.js';
import { validateKey } from '../../../src/idempotency/index.js';
import { A2ARequestHandler } from '../../../src/server/a2a-request-handler.js';
import { localCallContext } from '../../../src/server/call-context.js';
import { silentLogger } from '../../../src/server/observability/logger.js';
import { ManualClock } from '../../../src/store/clock.js';
import { MemoryTaskStore } from '../../../src/store/memory/memory-task-store.js';
import {
  eventKinds,
  handlerFor,
  sendForTask,
  streamAll,
  taskOf,
  tempLogPath,
  texts,
  until,
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

  it('declares itself resumable', () => {
    expect(createSlowAgent().executor.resumable).toBe(true);
  });

  it('makes its effect through a durable step, with the side-effect key <taskId>:effect', async () => {
    const path = tempLogPath();
    const handler = handlerFor(createSlowAgent({ delayMs: 20, effectsLog: new EffectsLog(path) }));
    const task = await sendForTask(handler, userMessage('slow-5', 'sign it'));
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const key = `${task.id}:${SLOW_EFFECT_STEP}`;
    expect(readEffects(path)).toEqual([{ taskId: task.id, messageId: 'slow-5', text: 'sign it', key }]);
    expect(validateKey(key)).toBeUndefined();
    const step = await handler.options.store.getStep({ tenant: '', owner: '' }, task.id, SLOW_EFFECT_STEP);
    expect(step?.fence).toBe(1);
  });

  it('completes a task whose server was lost without making its effect again', async () => {
    // Two servers on one store: the first is "killed" (the clock passes its lease, nobody renews it).
    const clock = new ManualClock();
    const store = new MemoryTaskStore({ clock });
    const path = tempLogPath();
    const serverOn = (delayMs: number) => {
      const agent = createSlowAgent({ delayMs, effectsLog: new EffectsLog(path) });
      return new A2ARequestHandler({
        agent: agent.executor,
        card: agent.card,
        store,
        clock,
        logger: silentLogger,
      });
    };
    const lost = serverOn(400);
    const task = taskOf(
      await lost.sendMessage(
        { message: userMessage('slow-6', 'survive'), configuration: { returnImmediately: true } },
        localCallContext(),
      ),
    );
    await until(async () => (await lost.getTask({ id: task.id }, localCallContext())).history!.length >= 2);
    expect(countEffects(path)).toBe(1);

    clock.advance(31_000);
    const heir = serverOn(20);
    const resumed = await heir.getTask({ id: task.id }, localCallContext());
    expect(resumed.status.state).toBe('TASK_STATE_WORKING');
    await until(
      async () =>
        (await heir.getTask({ id: task.id }, localCallContext())).status.state === 'TASK_STATE_COMPLETED',
    );
    const done = await heir.getTask({ id: task.id }, localCallContext());
    expect(texts(done.artifacts?.[0])).toEqual(['echo: survive']);
    expect(done.artifacts).toHaveLength(1);
    expect(countEffects(path)).toBe(1);
    await lost.runner.drain(); // the lost worker wakes up, is refused, and stops
    expect((await heir.getTask({ id: task.id }, localCallContext())).artifacts).toHaveLength(1);
    expect(countEffects(path)).toBe(1);
  });
});
