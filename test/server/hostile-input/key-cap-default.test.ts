/**
 * The per-scope key cap follows where the store keeps its keys (ADR 0047): 100,000 live keys per tenant and
 * principal on the memory store, where the cap bounds the process's memory; none by default on SQLite and
 * PostgreSQL, where retention bounds them; a number where the operator sets one; none at all with `false`.
 * Checked on what the store is asked to enforce at each keyed claim, on every store.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { CreateTaskInput, TaskStore } from '../../../src/store/task-store.js';
import { ManualClock } from '../../../src/store/clock.js';
import { keyedMessage, makeServer, send } from '../duplicate-safety/helpers.js';
import { closeStores, openStore, STORE_KINDS, type StoreKind } from './server-stores.js';

afterAll(closeStores);

/** The store, recording the cap each createTask is asked to enforce. */
function recordingCaps(store: TaskStore): { store: TaskStore; caps: (number | undefined)[] } {
  const caps: (number | undefined)[] = [];
  const recording = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'createTask')
        return (scope: never, input: CreateTaskInput) => {
          caps.push(input.maxKeysPerScope);
          return target.createTask(scope, input);
        };
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { store: recording, caps };
}

const DEFAULT: Record<StoreKind, number | undefined> = {
  memory: 100_000,
  sqlite: undefined,
  postgres: undefined,
};

describe.each(STORE_KINDS)('the key cap on the %s store', (kind) => {
  async function capsOf(maxKeysPerScope?: number | false): Promise<(number | undefined)[]> {
    const clock = new ManualClock();
    const opened = await openStore(kind, clock);
    const { store, caps } = recordingCaps(opened.store);
    const s = makeServer({ clock, store, ...(maxKeysPerScope !== undefined ? { maxKeysPerScope } : {}) });
    try {
      await send(s.ep, 'jsonrpc', keyedMessage('keyed'));
      return caps;
    } finally {
      await s.close();
    }
  }

  it(`by default: ${DEFAULT[kind] ?? 'none'}`, async () => {
    expect(await capsOf()).toEqual([DEFAULT[kind]]);
  });

  it('a cap the operator sets applies on every store; false sets none', async () => {
    expect(await capsOf(5)).toEqual([5]);
    expect(await capsOf(false)).toEqual([undefined]);
  });
});
