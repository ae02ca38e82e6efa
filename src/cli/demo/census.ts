/**
 * How many tasks an agent's server holds, and in which states, asked of the server itself with ListTasks (straight
 * to its port, not through the flaky link). This is where the demo's "tasks created" figure comes from: each
 * server's own store, never a number the demo worked out.
 */
import { A2AClient } from '../../client/index.js';

/** One server's tasks. */
export interface Census {
  readonly tasks: number;
  /** Tasks per state (`TASK_STATE_COMPLETED` -> n). */
  readonly states: Readonly<Record<string, number>>;
}

/** The states a task no longer leaves. */
const TERMINAL = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
]);

/** Whether every task of `census` has ended. */
export function allEnded(census: Census): boolean {
  return Object.entries(census.states).every(([state, n]) => n === 0 || TERMINAL.has(state));
}

/** Lists every task of the server at `url` (JSON-RPC), page by page. @throws when the server cannot answer */
export async function takeCensus(url: string, signal?: AbortSignal): Promise<Census> {
  const client = A2AClient.fromEndpoint(url, { retry: false });
  const states: Record<string, number> = {};
  let tasks = 0;
  let pageToken = '';
  do {
    const page = await client.listTasks(
      { pageSize: 100, ...(pageToken ? { pageToken } : {}) },
      {
        ...(signal ? { signal } : {}),
        timeoutMs: 2_000,
      },
    );
    for (const t of page.tasks) states[t.status.state] = (states[t.status.state] ?? 0) + 1;
    tasks += page.tasks.length;
    pageToken = page.nextPageToken;
  } while (pageToken !== '');
  return { tasks, states };
}
