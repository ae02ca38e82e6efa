/**
 * A sender that misbehaves the ways at-least-once delivery does: the same event again after a lost 2xx, copies
 * arriving late, events overtaking each other. Whatever the schedule, each event is applied once, in order
 * (docs/semantics.md §5, "Receiver"). A property over random schedules, in process; then one schedule over real
 * HTTP into a receiver on a SQLite file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MemoryProcessedSet,
  SqliteProcessedSet,
  createWebhookReceiver,
  nodeWebhookListener,
} from '../../src/webhooks/index.js';
import { delivery, deliveryRequest, newSecret } from './sender.js';

const secret = newSecret();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every seq 1..n at least once, plus extra copies, each sent after its own delay. */
const schedule = (n: number) =>
  fc
    .tuple(
      fc.array(fc.nat({ max: 25 }), { minLength: n, maxLength: n }),
      fc.array(fc.record({ seq: fc.integer({ min: 1, max: n }), delay: fc.nat({ max: 40 }) }), {
        maxLength: n,
      }),
    )
    .map(([firsts, extras]) => [...firsts.map((delay, i) => ({ seq: i + 1, delay })), ...extras]);

describe('a misbehaving sender', () => {
  it('duplicates, late copies and overtaking: each seq applied once, in order (property)', async () => {
    await fc.assert(
      fc.asyncProperty(schedule(8), async (plan) => {
        const applied: number[] = [];
        const receiver = createWebhookReceiver({
          secret,
          store: new MemoryProcessedSet(),
          getTask: () => Promise.reject(new Error('no gap may be seen: every event is sent')),
          reorderWindowMs: 5000,
          pollIntervalMs: 5,
          apply: (_e, info) => void applied.push(info.seq),
        });
        const verdicts = await Promise.all(
          plan.map(async ({ seq, delay }) => {
            await sleep(delay);
            return receiver.receive(delivery('T', seq, { secret }));
          }),
        );
        expect(verdicts.map((v) => v.status)).toEqual(plan.map(() => 200));
        expect(applied).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
        const outcomes = verdicts.map((v) => ('outcome' in v.body ? v.body.outcome : 'refused'));
        expect(outcomes.filter((o) => o === 'applied')).toHaveLength(8);
        expect(outcomes.filter((o) => o === 'duplicate')).toHaveLength(plan.length - 8);
      }),
      { numRuns: 15, seed: 7 },
    );
  });

  it('over HTTP into a SQLite file: retries after lost answers, a late copy after the end', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-once-webhooks-'));
    const file = join(dir, 'receipts.db');
    const store = await SqliteProcessedSet.open(file);
    const applied: number[] = [];
    const receiver = createWebhookReceiver({
      secret,
      store,
      getTask: () => Promise.reject(new Error('unused')),
      apply: (_e, info) => {
        // The joined write: the receipt table and this one commit together.
        info.tx.prepare('CREATE TABLE IF NOT EXISTS effects (seq INTEGER)').run();
        info.tx.prepare('INSERT INTO effects (seq) VALUES (?)').run(info.seq);
        applied.push(info.seq);
      },
    });
    const server: Server = createServer(nodeWebhookListener(receiver));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      const post = (seq: number) =>
        fetch(deliveryRequest(url, delivery('T', seq, { secret }))).then((r) => r.status);
      for (let seq = 1; seq <= 6; seq++) {
        expect(await post(seq)).toBe(200);
        // The answer to every other event is "lost": the sender sends it again, twice at once.
        if (seq % 2 === 0) expect(await Promise.all([post(seq), post(seq)])).toEqual([200, 200]);
      }
      // A copy that wandered the network, long after.
      expect(await post(3)).toBe(200);
      expect(applied).toEqual([1, 2, 3, 4, 5, 6]);
      expect(await store.lastSeq('', 'T')).toBe(6);
      const reader = new Database(file, { readonly: true });
      expect(reader.prepare('SELECT seq FROM effects ORDER BY rowid').pluck().all()).toEqual([
        1, 2, 3, 4, 5, 6,
      ]);
      reader.close();
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
