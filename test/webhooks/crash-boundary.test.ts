/**
 * Exactly once across a crash, and what is only at-least-once (ADR 0046): a receiver process on a SQLite file is
 * killed with SIGKILL in the middle of `apply`, after it wrote its effect through `tx` and appended to a file
 * outside the transaction. After a restart and the sender's redelivery, the joined effect exists once; the outside
 * one twice. The child runs the built package (`npm run build`; skipped when dist/ is absent).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteProcessedSet, createWebhookReceiver } from '../../src/webhooks/index.js';
import { delivery, deliveryRequest, newSecret } from './sender.js';

const DIST = fileURLToPath(new URL('../../dist/webhooks/index.js', import.meta.url));

// The child: a receiver on node:http whose apply writes through tx, appends outside it, and at `crashAt` stops
// after both, saying so, so the parent can kill it at exactly that point.
const CHILD = `
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { SqliteProcessedSet, createWebhookReceiver, nodeWebhookListener } from ${JSON.stringify(DIST)};
const [file, outside, secret, crashAt] = process.argv.slice(2);
const store = await SqliteProcessedSet.open(file);
const receiver = createWebhookReceiver({
  secret, store, getTask: () => Promise.reject(new Error('unused')),
  async apply(_event, info) {
    info.tx.prepare('INSERT INTO effects (seq) VALUES (?)').run(info.seq);
    appendFileSync(outside, info.seq + '\\n');
    if (info.seq === Number(crashAt)) {
      process.stdout.write('IN-APPLY\\n');
      await new Promise(() => {});
    }
  },
});
const server = createServer(nodeWebhookListener(receiver));
server.listen(0, '127.0.0.1', () => process.stdout.write('URL http://127.0.0.1:' + server.address().port + '/\\n'));
`;

describe.skipIf(!existsSync(DIST))('a receiver killed inside apply', () => {
  it('joined writes: exactly once; writes outside the transaction: at least once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-once-webhooks-crash-'));
    const file = join(dir, 'receipts.db');
    const outside = join(dir, 'outside.log');
    const script = join(dir, 'child.mjs');
    writeFileSync(script, CHILD);
    writeFileSync(outside, '');
    const setup = new Database(file);
    setup.exec('CREATE TABLE effects (seq INTEGER)');
    setup.close();
    const secret = newSecret();
    try {
      const child = spawn(process.execPath, [script, file, outside, secret, '2'], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      const saw = (marker: string) =>
        new Promise<void>((resolve, reject) => {
          const check = () => (out.includes(marker) ? resolve() : undefined);
          child.stdout.on('data', (c: Buffer) => {
            out += c.toString();
            check();
          });
          child.once('exit', () => reject(new Error(`child exited before ${marker}: ${out}`)));
          check();
        });
      await saw('URL ');
      const url = /URL (\S+)/.exec(out)![1]!;
      const exited = new Promise((r) => child.once('exit', r));
      expect((await fetch(deliveryRequest(url, delivery('T', 1, { secret })))).status).toBe(200);
      // Event 2: the child applies it and stops before committing; its answer never comes.
      fetch(deliveryRequest(url, delivery('T', 2, { secret }))).catch(() => undefined);
      await saw('IN-APPLY');
      child.kill('SIGKILL');
      await exited;

      // Restarted (in this process), on the same file: event 2 is not recorded, and its joined effect is gone.
      const store = await SqliteProcessedSet.open(file);
      expect(await store.lastSeq('', 'T')).toBe(1);
      const applied: number[] = [];
      const receiver = createWebhookReceiver({
        secret,
        store,
        getTask: () => Promise.reject(new Error('unused')),
        apply(_event, info) {
          info.tx.prepare('INSERT INTO effects (seq) VALUES (?)').run(info.seq);
          writeFileSync(outside, `${info.seq}\n`, { flag: 'a' });
          applied.push(info.seq);
        },
      });
      // The sender never saw a 2xx for event 2, so it delivers it again; and event 3 follows.
      expect((await receiver.receive(delivery('T', 2, { secret }))).body).toMatchObject({
        outcome: 'applied',
      });
      expect((await receiver.receive(delivery('T', 3, { secret }))).body).toMatchObject({
        outcome: 'applied',
      });
      await store.close();

      const reader = new Database(file, { readonly: true });
      expect(reader.prepare('SELECT seq FROM effects ORDER BY rowid').pluck().all()).toEqual([1, 2, 3]);
      reader.close();
      expect(readFileSync(outside, 'utf8').trim().split('\n').map(Number)).toEqual([1, 2, 2, 3]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
