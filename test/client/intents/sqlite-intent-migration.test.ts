/**
 * An outbox file written before intents were keyed per agent and tenant (a table whose primary key was the bare
 * idempotency key) is migrated in place when a `SqliteIntentStore` opens it (ADR 0067): every row kept, pending
 * and settled, the tenant read from the stored request, pending intents still recovered afterwards, and several
 * processes opening the same old file at once migrate it once.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient, SqliteIntentStore, cardUrlOf } from '../../../src/client/index.js';
import { mintKey, setKey } from '../../../src/idempotency/index.js';
import type { SendMessageRequest } from '../../../src/protocol/requests.js';
import { startOnceAgent } from '../../helpers/once-agent.js';
import type { OnceAgent } from '../../helpers/once-agent.js';
import { CLI_PATH, SERVER_BUILT } from '../harness/a2a-once-server.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-intent-migration-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The table exactly as stores before the migration created it. */
const OLD_DDL = `CREATE TABLE a2a_once_client_intents (
      key TEXT PRIMARY KEY,
      message_id TEXT NOT NULL,
      target TEXT NOT NULL,
      request TEXT NOT NULL,
      streaming INTEGER NOT NULL,
      created_at INTEGER NOT NULL,
      settled_at INTEGER,
      outcome TEXT
    );
    CREATE INDEX a2a_once_client_intents_pending ON a2a_once_client_intents (target, created_at)
      WHERE settled_at IS NULL`;

interface OldRow {
  key: string;
  target: string;
  request: SendMessageRequest;
  createdAt: number;
  settled?: { at: number; outcome: string };
}

function keyedRequest(text: string, tenant?: string): { key: string; request: SendMessageRequest } {
  const key = mintKey();
  const message = setKey({ messageId: `mig-${key}`, role: 'ROLE_USER', parts: [{ text }] }, key);
  return { key, request: tenant === undefined ? { message } : { message, tenant } };
}

/** Writes an outbox file the way the old store did. */
function writeOldFile(file: string, rows: OldRow[]): void {
  const db = new Database(file);
  db.exec(OLD_DDL);
  const insert = db.prepare(
    `INSERT INTO a2a_once_client_intents (key, message_id, target, request, streaming, created_at, settled_at, outcome)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const r of rows) {
    insert.run(
      r.key,
      r.request.message.messageId,
      r.target,
      JSON.stringify(r.request),
      0,
      r.createdAt,
      r.settled?.at ?? null,
      r.settled?.outcome ?? null,
    );
  }
  db.close();
}

interface Columns {
  name: string;
  pk: number;
}

describe('SqliteIntentStore on a file of the old schema', () => {
  let agent: OnceAgent;
  beforeAll(async () => {
    agent = await startOnceAgent();
  });
  afterAll(async () => {
    await agent.close();
  });

  it('migrates in place, keeping every pending and settled row, and recovers the pending ones once', async () => {
    const file = join(dir, `old-${mintKey()}.db`);
    const target = cardUrlOf(agent.url);
    const untenanted = keyedRequest('recorded before the migration');
    const emptyTenant = keyedRequest('recorded with an empty tenant', '');
    const otherTenant = keyedRequest('bound to a tenant this agent has no interface of', 'acme');
    const settled = keyedRequest('answered long ago');
    const elsewhere = keyedRequest('for another agent');
    writeOldFile(file, [
      { key: untenanted.key, target, request: untenanted.request, createdAt: 1_000 },
      { key: emptyTenant.key, target, request: emptyTenant.request, createdAt: 2_000 },
      { key: otherTenant.key, target, request: otherTenant.request, createdAt: 3_000 },
      {
        key: settled.key,
        target,
        request: settled.request,
        createdAt: 500,
        settled: { at: 600, outcome: JSON.stringify({ status: 'answered', taskId: 'old-task' }) },
      },
      {
        key: elsewhere.key,
        target: 'http://elsewhere.invalid/',
        request: elsewhere.request,
        createdAt: 4_000,
      },
    ]);

    const db = new Database(file);
    const store = new SqliteIntentStore(db);
    const columns = db.prepare('PRAGMA table_info(a2a_once_client_intents)').all() as Columns[];
    expect(
      columns
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name),
    ).toEqual(['target', 'tenant', 'key']);
    const rows = db
      .prepare('SELECT key, tenant, settled_at, outcome FROM a2a_once_client_intents ORDER BY created_at')
      .all() as { key: string; tenant: string; settled_at: number | null; outcome: string | null }[];
    expect(rows).toEqual([
      {
        key: settled.key,
        tenant: '',
        settled_at: 600,
        outcome: JSON.stringify({ status: 'answered', taskId: 'old-task' }),
      },
      { key: untenanted.key, tenant: '', settled_at: null, outcome: null },
      { key: emptyTenant.key, tenant: '', settled_at: null, outcome: null },
      { key: otherTenant.key, tenant: 'acme', settled_at: null, outcome: null },
      { key: elsewhere.key, tenant: '', settled_at: null, outcome: null },
    ]);
    expect((await store.pending(target)).map((i) => i.key)).toEqual([
      untenanted.key,
      emptyTenant.key,
      otherTenant.key,
    ]);
    expect((await store.pending(target))[0]!.request).toEqual(untenanted.request);

    // The migrated table holds a key per agent and tenant: the same key for another agent is its own intent.
    await store.record({
      key: untenanted.key,
      messageId: 'another-agents-message',
      target: 'http://another.invalid/',
      request: untenanted.request,
      streaming: false,
      createdAt: 5_000,
    });
    expect((await store.pending('http://another.invalid/')).map((i) => i.messageId)).toEqual([
      'another-agents-message',
    ]);

    const client = await A2AClient.fromCardUrl(agent.url, { intentStore: store });
    const before = agent.runs();
    const report = await client.recoverPending();
    expect(report.map((r) => [r.messageId, r.status])).toEqual([
      [untenanted.request.message.messageId, 'resent'],
      [emptyTenant.request.message.messageId, 'resent'],
      [otherTenant.request.message.messageId, 'failed'],
    ]);
    expect(agent.runs() - before).toBe(2);
    expect((await store.pending(target)).map((i) => i.key)).toEqual([otherTenant.key]);
    expect((await store.pending('http://elsewhere.invalid/')).map((i) => i.key)).toEqual([elsewhere.key]);
    db.close();

    // Opening the migrated file again changes nothing.
    const reopened = new Database(file);
    const again = new SqliteIntentStore(reopened);
    expect((await again.pending()).map((i) => i.key)).toEqual([
      otherTenant.key,
      elsewhere.key,
      untenanted.key,
    ]);
    expect(
      (reopened.prepare('SELECT COUNT(*) AS n FROM a2a_once_client_intents').get() as { n: number }).n,
    ).toBe(6);
    reopened.close();
  });

  it.skipIf(!SERVER_BUILT)(
    'is migrated once when several processes open the same old file at the same moment',
    async () => {
      const file = join(dir, `racing-${mintKey()}.db`);
      const rows: OldRow[] = Array.from({ length: 400 }, (_, n) => {
        const { key, request } = keyedRequest(`row ${n}`, n % 3 === 0 ? 't1' : undefined);
        return {
          key,
          target: 'http://agent.invalid/',
          request,
          createdAt: 1_000 + n,
          ...(n % 4 === 0 ? { settled: { at: 9_000, outcome: '{"status":"not-sent"}' } } : {}),
        };
      });
      writeOldFile(file, rows);
      const storeModule = pathToFileURL(
        join(CLI_PATH, '..', '..', 'client', 'intents', 'sqlite-intent-store.js'),
      ).href;
      // Each process loads, says so, and opens the file only when the test says go to all of them at once.
      const script = `
        import Database from 'better-sqlite3';
        const { SqliteIntentStore } = await import(${JSON.stringify(storeModule)});
        process.stdout.write('ready\\n');
        process.stdin.once('data', async () => {
          const store = new SqliteIntentStore(new Database(${JSON.stringify(file)}, { timeout: 20000 }));
          process.stdout.write(String((await store.pending()).length));
          process.exit(0);
        });
      `;
      const children = Array.from({ length: 4 }, () => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
          cwd: process.cwd(),
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        let out = '';
        let err = '';
        const ready = new Promise<void>((resolve) => {
          child.stdout.on('data', (c: Buffer) => {
            out += c.toString('utf8');
            if (out.includes('ready\n')) resolve();
          });
        });
        child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
        const done = new Promise<string>((resolve, reject) => {
          child.once('error', reject);
          child.once('exit', (code) =>
            code === 0 ? resolve(out.replace('ready\n', '')) : reject(new Error(`exit ${code}: ${err}`)),
          );
        });
        return { child, ready, done };
      });
      await Promise.all(children.map((c) => c.ready));
      for (const c of children) c.child.stdin.write('go\n');
      const outputs = await Promise.all(children.map((c) => c.done));
      expect(outputs).toEqual(['300', '300', '300', '300']);
      const db = new Database(file);
      const after = db
        .prepare('SELECT key, tenant, settled_at FROM a2a_once_client_intents ORDER BY created_at')
        .all() as { key: string; tenant: string; settled_at: number | null }[];
      expect(after).toEqual(
        rows.map((r, n) => ({
          key: r.key,
          tenant: n % 3 === 0 ? 't1' : '',
          settled_at: r.settled?.at ?? null,
        })),
      );
      db.close();
    },
    60_000,
  );
});
