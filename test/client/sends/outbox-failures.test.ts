/**
 * The client's own bookkeeping never turns a send that ran into a failure (ADR 0068): an outbox that is locked or
 * failing when the answer arrives does not hide the answer (the caller gets the task, the intent stays pending
 * for recovery to settle by replay, and the failure is logged without the key), for blocking sends, streams and
 * recovery alike; an outbox that cannot record a send before its first attempt refuses the send, and nothing is
 * sent. Against a real a2a-once agent (in process, memory store) and real SQLite files.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  A2AClient,
  ClientError,
  MemoryIntentStore,
  SqliteIntentStore,
  cardUrlOf,
} from '../../../src/client/index.js';
import type {
  ClientLogger,
  FetchLike,
  IntentIdentity,
  IntentOutcome,
  IntentStore,
  SendIntent,
} from '../../../src/client/index.js';
import { keyHash, mintKey } from '../../../src/idempotency/index.js';
import { startOnceAgent } from '../../helpers/once-agent.js';
import type { OnceAgent } from '../../helpers/once-agent.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-outbox-failures-'));

/** A logger that keeps what it was told. */
class KeptLog implements ClientLogger {
  readonly lines: { level: 'warn' | 'error'; message: string; fields: Record<string, unknown> }[] = [];
  warn(message: string, fields: Readonly<Record<string, unknown>> = {}): void {
    this.lines.push({ level: 'warn', message, fields: { ...fields } });
  }
  error(message: string, fields: Readonly<Record<string, unknown>> = {}): void {
    this.lines.push({ level: 'error', message, fields: { ...fields } });
  }
  /** Everything logged, as text (errors by their message), to look for a key in clear. */
  text(): string {
    return JSON.stringify(this.lines, (_k, v: unknown) =>
      v instanceof Error ? `${v.name}: ${v.message}` : v,
    );
  }
}

/** An outbox whose `settle` (or `record`) fails: a store on a full disk, a dropped connection. */
class FailingStore implements IntentStore {
  readonly inner = new MemoryIntentStore();
  constructor(private readonly failing: 'settle' | 'record') {}
  record(intent: SendIntent): Promise<void> {
    if (this.failing === 'record') return Promise.reject(new Error('disk full'));
    return this.inner.record(intent);
  }
  settle(identity: IntentIdentity, outcome: IntentOutcome): Promise<void> {
    if (this.failing === 'settle') return Promise.reject(new Error('connection to the outbox lost'));
    return this.inner.settle(identity, outcome);
  }
  pending(target?: string): Promise<SendIntent[]> {
    return this.inner.pending(target);
  }
}

/**
 * A SQLite outbox file, a second connection to it that can take `BEGIN EXCLUSIVE`, and a fetch that takes that
 * lock the moment the agent's answer arrives (after the intent was recorded, before it is settled).
 */
function lockedOutbox(): {
  store: SqliteIntentStore;
  db: Database.Database;
  fetch: FetchLike;
  lockOnAnswer(): void;
  release(): void;
  fetches(): number;
} {
  const file = join(dir, `outbox-${mintKey()}.db`);
  const db = new Database(file, { timeout: 50 });
  const store = new SqliteIntentStore(db);
  const locker = new Database(file);
  let armed = false;
  let locked = false;
  let fetches = 0;
  return {
    store,
    db,
    fetch: async (input, init) => {
      fetches++;
      const res = await fetch(input, init);
      if (armed && !locked) {
        locker.exec('BEGIN EXCLUSIVE');
        locked = true;
      }
      return res;
    },
    lockOnAnswer: () => (armed = true),
    release: () => {
      if (locked) locker.exec('ROLLBACK');
      locked = false;
      armed = false;
    },
    fetches: () => fetches,
  };
}

describe('an answer survives an outbox that fails to settle it', () => {
  let agent: OnceAgent;
  beforeAll(async () => {
    agent = await startOnceAgent();
  });
  afterAll(async () => {
    await agent.close();
    rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => vi.restoreAllMocks());

  it('a SQLite outbox locked by another connection when the answer arrives: the caller gets the task', async () => {
    const outbox = lockedOutbox();
    const log = new KeptLog();
    const client = await A2AClient.fromCardUrl(agent.url, {
      intentStore: outbox.store,
      fetch: outbox.fetch,
      logger: log,
    });
    const key = mintKey();
    const before = agent.runs();
    outbox.lockOnAnswer();
    const answer = await client.send('settled while the outbox is locked', { key });
    outbox.release();
    expect('task' in answer && answer.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(agent.runs() - before).toBe(1);

    // The intent stays pending, and recovery settles it by replay: the agent does not run again.
    expect((await outbox.store.pending(cardUrlOf(agent.url))).map((i) => i.key)).toEqual([key]);
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatchObject({ level: 'error', fields: { keyHash: keyHash(key) } });
    expect(String(log.lines[0]!.fields.error)).toMatch(/locked|busy/i);
    expect(log.text()).not.toContain(key);
    const report = await client.recoverPending();
    expect(report.map((r) => r.status)).toEqual(['resent']);
    expect(agent.runs() - before).toBe(1);
    expect(await outbox.store.pending()).toEqual([]);
    outbox.db.close();
  });

  it('a store whose settle throws: the caller gets the task, the intent stays pending, the failure is logged', async () => {
    const store = new FailingStore('settle');
    const log = new KeptLog();
    const client = await A2AClient.fromCardUrl(agent.url, { intentStore: store, logger: log });
    const key = mintKey();
    const answer = await client.send('settled into a failing store', { key });
    expect('task' in answer && answer.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect((await store.pending()).map((i) => i.key)).toEqual([key]);
    expect(log.lines.map((l) => [l.level, l.fields.keyHash])).toEqual([['error', keyHash(key)]]);
    expect(log.text()).toContain('connection to the outbox lost');
    expect(log.text()).not.toContain(key);
  });

  it('a stream whose outbox is locked when its task is named: every event arrives, the intent stays pending', async () => {
    const outbox = lockedOutbox();
    const log = new KeptLog();
    const client = await A2AClient.fromCardUrl(agent.url, {
      intentStore: outbox.store,
      fetch: outbox.fetch,
      logger: log,
    });
    const key = mintKey();
    const before = agent.runs();
    outbox.lockOnAnswer();
    const states: string[] = [];
    for await (const ev of client.sendStream('streamed while the outbox is locked', { key })) {
      if ('task' in ev) states.push(ev.task.status.state);
      if ('statusUpdate' in ev) states.push(ev.statusUpdate.status.state);
    }
    outbox.release();
    expect(states.at(-1)).toBe('TASK_STATE_COMPLETED');
    expect(agent.runs() - before).toBe(1);
    expect((await outbox.store.pending()).map((i) => i.key)).toEqual([key]);
    expect(log.lines.map((l) => [l.level, l.fields.keyHash])).toEqual([['error', keyHash(key)]]);
    expect(log.text()).not.toContain(key);
    expect((await client.recoverPending()).map((r) => r.status)).toEqual(['resent']);
    expect(agent.runs() - before).toBe(1);
    outbox.db.close();
  });

  it('recovery whose settle fails reports the resend as resent (it was answered), and the intent stays pending', async () => {
    const store = new FailingStore('settle');
    const key = mintKey();
    const writer = await A2AClient.fromCardUrl(agent.url, { intentStore: store, logger: new KeptLog() });
    await writer.send('first run', { key });
    const log = new KeptLog();
    const before = agent.runs();
    const restarted = await A2AClient.fromCardUrl(agent.url, { intentStore: store, logger: log });
    const report = await restarted.recoverPending();
    expect(report.map((r) => r.status)).toEqual(['resent']);
    expect(report[0]!.response && 'task' in report[0]!.response).toBe(true);
    expect(agent.runs()).toBe(before);
    expect((await store.pending()).map((i) => i.key)).toEqual([key]);
    expect(log.lines.map((l) => [l.level, l.fields.keyHash])).toEqual([['error', keyHash(key)]]);
  });

  it('without a logger, the failure is one warning line on stderr, with the key hashed', async () => {
    const lines: unknown[][] = [];
    vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void lines.push(args));
    const client = await A2AClient.fromCardUrl(agent.url, { intentStore: new FailingStore('settle') });
    const key = mintKey();
    await client.send('logged by default', { key });
    expect(lines).toHaveLength(1);
    const line = lines[0]!.map(String).join(' ');
    expect(line).not.toContain('\n');
    expect(line).toContain(keyHash(key));
    expect(line).toContain('connection to the outbox lost');
    expect(line).not.toContain(key);
  });
});

describe('an outbox that cannot record a send refuses it before anything is sent', () => {
  let agent: OnceAgent;
  beforeAll(async () => {
    agent = await startOnceAgent();
  });
  afterAll(async () => {
    await agent.close();
  });

  it.each([
    ['a store whose record throws', () => ({ store: new FailingStore('record'), done() {} })],
    [
      'a SQLite outbox locked by another connection',
      () => {
        const file = join(mkdtempSync(join(tmpdir(), 'a2a-once-outbox-locked-')), 'outbox.db');
        const db = new Database(file, { timeout: 50 });
        const store = new SqliteIntentStore(db);
        const locker = new Database(file);
        locker.exec('BEGIN EXCLUSIVE');
        return {
          store: store,
          done() {
            locker.exec('ROLLBACK');
            db.close();
          },
        };
      },
    ],
  ])('%s: a ClientError that says it was not sent, and no request reaches the agent', async (_name, make) => {
    const { store, done } = make();
    let fetches = 0;
    const client = await A2AClient.fromCardUrl(agent.url, { intentStore: store });
    const counting = await A2AClient.fromCardUrl(agent.url, {
      intentStore: store,
      fetch: (input, init) => {
        fetches++;
        return fetch(input, init);
      },
    });
    const before = agent.runs();
    fetches = 0; // the card fetch is not a send
    for (const c of [client, counting]) {
      const err = await c.send('never recorded', { key: mintKey() }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ClientError);
      expect((err as ClientError).code).toBe('INTENT_NOT_RECORDED');
      expect((err as ClientError).message).toMatch(/not sent/);
      expect((err as Error).cause).toBeInstanceOf(Error);
      const streamed = await (async () => {
        for await (const ev of c.sendStream('never recorded either', { key: mintKey() })) void ev;
      })().catch((e: unknown) => e);
      expect((streamed as ClientError).code).toBe('INTENT_NOT_RECORDED');
    }
    expect(fetches).toBe(0);
    expect(agent.runs()).toBe(before);
    done();
  });
});
