/**
 * A finished watch leaves nothing behind on the store (found by bench/rss-soak.mjs: a SQLite server's memory grew
 * by about 70 bytes per blocking send). Every watch combined the caller's signal with the store's own closing
 * signal through `AbortSignal.any`, which on Node 20 keeps a WeakRef in the long-lived signal for every call.
 * Measured on the heap after a full GC, over enough watches that the old growth (some megabytes) stands far above
 * the noise.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { getEventListeners } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { linkSignals } from '../../src/store/sql/poll-watch.js';
import { SqliteTaskStore } from '../../src/store/sqlite/index.js';
import { ALICE, makeTask, statusEvent } from '../store-contract/fixtures/tasks.js';

setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-watch-mem-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('linkSignals', () => {
  it('aborts with either signal, and leaves no listener behind once disposed', () => {
    const a = new AbortController();
    const b = new AbortController();
    const linked = linkSignals(a.signal, b.signal);
    expect(getEventListeners(b.signal, 'abort')).toHaveLength(1);
    linked.dispose();
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(b.signal, 'abort')).toHaveLength(0);
    const again = linkSignals(a.signal, b.signal);
    b.abort();
    expect(again.signal.aborted).toBe(true);
    again.dispose();
  });
});

describe('SQLite watch', () => {
  it('30,000 finished watches do not grow the heap', async () => {
    const store = new SqliteTaskStore({ path: join(dir, 'w.db') });
    await store.migrate();
    const task = makeTask('t1');
    await store.createTask(ALICE, { task });
    await store.commit(ALICE, 't1', {
      expectFence: 1,
      task,
      events: [statusEvent(task, 'TASK_STATE_WORKING')],
    });
    const once = async () => {
      const ctl = new AbortController();
      for await (const e of store.watch(ALICE, 't1', 0, ctl.signal)) {
        expect(e.seq).toBe(1);
        break;
      }
    };
    for (let i = 0; i < 2_000; i++) await once(); // warm-up: code, caches, statements
    gc();
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 30_000; i++) await once();
    gc();
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    await store.close();
    // The leak kept ~70 bytes a watch (about 2 MB here); what remains is noise.
    expect(grown).toBeLessThan(800_000);
  }, 60_000);
});
