/**
 * A blocking keyed send makes no AbortController of its own (ADR 0139): its wait links its deadline slot to the
 * drain gate's end, and the SQL stores link that to their closing signal, through links shared by every wait.
 * Counted, not timed: the constructor is wrapped while the sends run, and the only controllers allowed are the
 * deadline slots (one per 100 ms) and their shared links (one per slot, per long-lived signal). Before, every
 * send made one (memory store) or two (SQL stores).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MemoryTaskStore } from '../../../src/store/memory/index.js';
import { SqliteTaskStore } from '../../../src/store/sqlite/index.js';
import type { TaskStore } from '../../../src/store/task-store.js';
import { rpcRequest } from '../../helpers/http.js';
import { keyedMessage } from '../duplicate-safety/helpers.js';
import { builtinServer } from './fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-send-signals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const Native = globalThis.AbortController;
let made = 0;
class CountingAbortController extends Native {
  constructor() {
    super();
    made++;
  }
}
afterEach(() => {
  globalThis.AbortController = Native;
});

const SENDS = 200;

async function controllersPerSend(store: TaskStore): Promise<number> {
  const server = builtinServer('echo', { store });
  try {
    const request = () => rpcRequest('SendMessage', { message: keyedMessage('hello') });
    // Warm-up: the first send opens what lives as long as the server (a store's statements, the scope).
    expect((await server.fetch(request())).status).toBe(200);
    // The requests are built before counting: undici's own Request makes a controller of its own.
    const requests = Array.from({ length: SENDS }, request);
    made = 0;
    globalThis.AbortController = CountingAbortController;
    // 16 at a time, as the bench sends them, so waits overlap and share.
    for (let i = 0; i < SENDS; i += 16) {
      const answers = await Promise.all(requests.slice(i, i + 16).map((r) => server.fetch(r)));
      for (const a of answers) {
        expect(a.status).toBe(200);
        expect(
          ((await a.json()) as { result?: { task?: { status: { state: string } } } }).result?.task?.status
            .state,
        ).toBe('TASK_STATE_COMPLETED');
      }
    }
    globalThis.AbortController = Native;
    return made / SENDS;
  } finally {
    globalThis.AbortController = Native;
    await server.close();
  }
}

describe('a blocking keyed send makes no AbortController', () => {
  it('on the memory store', async () => {
    // Before the shared links: 1 a send. Deadline slots and their links: a few for the whole run.
    expect(await controllersPerSend(new MemoryTaskStore())).toBeLessThan(0.1);
  });

  it('on SQLite, whose wait also links the store closing signal', async () => {
    const store = new SqliteTaskStore({ path: join(dir, 'signals.db') });
    await store.migrate();
    // Before the shared links: 2 a send.
    expect(await controllersPerSend(store)).toBeLessThan(0.1);
  });
});
