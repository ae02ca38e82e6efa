/**
 * The server's runner retries worker writes with the default schedule (ADR 0029): a blocking send whose agent's
 * first writes hit store errors still answers with the COMPLETED task, the agent ran once, and each failed
 * attempt left a warning with the task id. Real stores behind a wrapper whose first commits throw; real timers.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/store/clock.js';
import { BACKENDS } from '../after-admission/backends.js';
import { faultyStore } from '../after-admission/faulty-store.js';
import {
  BINDINGS,
  keyedMessage,
  send,
  serversClosedAfterEach,
  taskOf,
  type Binding,
} from '../duplicate-safety/helpers.js';

describe.each(BACKENDS.map((b) => [b.name, b] as const))('server write retries on %s', (_name, backend) => {
  const server = serversClosedAfterEach();

  it.each(BINDINGS)(
    'a blocking send over %s completes through two failed commits',
    async (binding: Binding) => {
      const clock = new ManualClock();
      const { store, control } = faultyStore(await backend.open(clock));
      control.commitPlan = (n) => (n <= 2 ? 'throw' : 'pass');
      const t = server({ store, clock });
      const task = taskOf(await send(t.ep, binding, keyedMessage('hello')));
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(task.artifacts?.[0]?.parts).toEqual([{ text: 'echo: hello' }]);
      expect(t.agent.executionsOf(task.id)).toHaveLength(1);
      const retries = t.logger.entries.filter(
        (e) =>
          e.level === 'warn' && e.message === 'store write failed; retrying' && e.fields?.taskId === task.id,
      );
      expect(retries.map((e) => e.fields?.attempt)).toEqual([1, 2]);
    },
  );
});
