/**
 * The ledger demo agent: posts once per task through a durable step, its side-effect key as the ledger's
 * idempotency key (ADR 0038), and answers with the receipt; refuses to be built without a usable ledger URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAgent,
  createLedgerAgent,
  LEDGER_URL_ENV,
  receiptText,
} from '../../../src/cli/agents/index.js';
import { startLedger, type LedgerService } from '../../chaos/ledger-service.js';
import { handlerFor, sendForTask, userMessage } from './harness.js';

describe('the ledger agent', () => {
  let ledger: LedgerService;
  beforeAll(async () => {
    ledger = await startLedger();
  });
  afterAll(() => ledger.close());

  it('posts the text once under the step key and completes with the receipt', async () => {
    const agent = createLedgerAgent({ ledgerUrl: ledger.url });
    expect(agent.card.skills?.[0]?.id).toBe('ledger-post');
    const task = await sendForTask(handlerFor(agent), userMessage('ledger-1', 'pay Bob'));
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const mine = ledger.entries().filter((e) => e.key === `${task.id}:ledger-post`);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.text).toBe('pay Bob');
    expect(task.artifacts?.[0]?.parts).toEqual([{ text: receiptText({ entry: mine[0]!.entry }) }]);
  });

  it('reads the ledger URL from the environment through createAgent', async () => {
    const before = process.env[LEDGER_URL_ENV];
    process.env[LEDGER_URL_ENV] = `${ledger.url}/`;
    try {
      const task = await sendForTask(handlerFor(createAgent('ledger')), userMessage('ledger-2', 'from env'));
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(ledger.requestsFor(`${task.id}:ledger-post`)).toBe(1);
    } finally {
      if (before === undefined) delete process.env[LEDGER_URL_ENV];
      else process.env[LEDGER_URL_ENV] = before;
    }
  });

  it('fails the task, saying why, when the ledger refuses the entry', async () => {
    const agent = createLedgerAgent({ ledgerUrl: `${ledger.url}/elsewhere` });
    const task = await sendForTask(handlerFor(agent), userMessage('ledger-3', 'lost'));
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(JSON.stringify(task.status.message)).toContain('the ledger refused the entry: HTTP 404');
  });

  it.each([
    [undefined, /needs the ledger's base URL in A2A_ONCE_LEDGER_URL/],
    ['not a url', /A2A_ONCE_LEDGER_URL is not a URL/],
    ['file:///tmp/ledger', /must be an http or https URL, not file:/],
  ])('refuses to be built with ledger URL %s', (url, message) => {
    const before = process.env[LEDGER_URL_ENV];
    delete process.env[LEDGER_URL_ENV];
    try {
      expect(() => createLedgerAgent(url === undefined ? {} : { ledgerUrl: url })).toThrow(message);
    } finally {
      if (before !== undefined) process.env[LEDGER_URL_ENV] = before;
    }
  });
});
