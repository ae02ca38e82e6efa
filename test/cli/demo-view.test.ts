/**
 * The demo's parts that need no process: the view (redrawn in place on a terminal, plain lines in a pipe), how a
 * link names a send (messageId and key, so a resend as-is and a keyed retry are both recognised), the link
 * itself against a small server, and the tree agent's configuration.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { parseTreeChildren, parseTreeMode } from '../../src/cli/agents/index.js';
import { startRelay, sendNameOf } from '../../src/cli/demo/relay.js';
import { TREE } from '../../src/cli/demo/topology.js';
import { createView, statesText, treeLines, type TreeRows } from '../../src/cli/demo/view.js';
import { mintKey, setKey } from '../../src/idempotency/index.js';
import type { Message } from '../../src/protocol/model.js';
import { capture } from './capture.js';

const rows = (tasks: number): TreeRows =>
  Object.fromEntries(
    TREE.map((n) => [
      n.id,
      {
        tasks,
        states: { TASK_STATE_COMPLETED: tasks },
        retries: 1,
        ...(n.children.length === 0 ? { effects: tasks } : {}),
      },
    ]),
  );

describe('the demo view', () => {
  it('draws the tree with its branches and counts', () => {
    const lines = treeLines(rows(8));
    expect(lines).toHaveLength(7);
    expect(lines[0]).toMatch(/^orchestrator\s+8 tasks\s+8 completed\s+1 retry$/);
    expect(lines[2]).toMatch(/^│ {2}├─ leaf A1\s+8 tasks\s+8 completed\s+1 retry\s+8 ledger effects$/);
    expect(lines[6]).toMatch(/^ {3}└─ leaf B2/);
  });

  it('says what a node it cannot ask shows, and its note', () => {
    const r = { ...rows(1), b2: { tasks: undefined, states: {}, retries: 2, effects: 1, note: 'killed' } };
    expect(treeLines(r)[6]).toMatch(/leaf B2\s+\? tasks\s+-\s+2 retries\s+1 ledger effect\s+killed$/);
  });

  it('lists states in words', () => {
    expect(statesText({ TASK_STATE_WORKING: 1, TASK_STATE_COMPLETED: 3, TASK_STATE_FAILED: 0 })).toBe(
      '3 completed, 1 working',
    );
    expect(statesText({})).toBe('-');
  });

  it('redraws in place on a terminal: back over the previous block, cleared below', () => {
    const io = capture(true);
    const view = createView(io, true);
    expect(view.live).toBe(true);
    view.update(rows(1));
    view.update(rows(2));
    expect(io.lines).toHaveLength(14);
    expect(io.lines[0]).not.toContain('\u001b[');
    expect(io.lines[7]!.startsWith('\u001b[7A\r\u001b[J')).toBe(true);
    view.settle(rows(2));
    view.say('table');
    expect(io.lines.at(-1)).toBe('table');
  });

  it('prints plain lines in a pipe, and with --no-live: events, then the tree once', () => {
    for (const [tty, live] of [
      [false, true],
      [true, false],
    ] as const) {
      const io = capture(tty);
      const view = createView(io, live);
      expect(view.live).toBe(false);
      view.update(rows(1));
      view.event('leaf B2 killed');
      view.settle(rows(1));
      expect(io.lines).toHaveLength(8);
      expect(io.lines[0]).toBe('  leaf B2 killed');
      expect(io.lines.join('')).not.toContain('\u001b[');
    }
  });
});

describe('how a link names a send', () => {
  const message: Message = { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'pay' }] };
  const rpc = (method: string, m: Message) =>
    Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { message: m } }));

  it('by messageId, and by messageId and key when keyed', () => {
    expect(sendNameOf('/', rpc('SendMessage', message))).toBe('m-1');
    const key = mintKey();
    expect(sendNameOf('/', rpc('SendMessage', setKey(message, key)))).toBe(`m-1 ${key}`);
    expect(sendNameOf('/', rpc('SendStreamingMessage', message))).toBe('m-1');
    expect(sendNameOf('/message:send', Buffer.from(JSON.stringify({ message })))).toBe('m-1');
  });

  it('not at all for other calls and other bodies', () => {
    expect(sendNameOf('/', Buffer.from(JSON.stringify({ method: 'GetTask', params: { id: 't' } })))).toBe(
      undefined,
    );
    expect(sendNameOf('/', Buffer.from('not json'))).toBe(undefined);
    expect(sendNameOf('/', Buffer.from('null'))).toBe(undefined);
    expect(sendNameOf('/', rpc('SendMessage', { ...message, messageId: 7 as unknown as string }))).toBe(
      undefined,
    );
  });
});

describe('the link', () => {
  let hits = 0;
  const upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits++;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ host: req.headers.host }));
    });
  });
  afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

  it('answers 503 before it is connected; then loses the first answer of each send only', async () => {
    const relay = await startRelay();
    try {
      const send = (messageId: string) =>
        fetch(relay.url, {
          method: 'POST',
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'SendMessage',
            params: { message: { messageId, role: 'ROLE_USER', parts: [{ text: 'x' }] } },
          }),
        });
      expect((await send('early')).status).toBe(503);
      await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
      relay.connect(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);

      await expect(send('a')).rejects.toThrow(); // processed upstream, answer lost
      expect(hits).toBe(1);
      const again = await send('a');
      // The Host header is kept: the agent's card names the link.
      expect(await again.json()).toEqual({ host: new URL(relay.url).host });
      expect((await fetch(`${relay.url}/.well-known/agent-card.json`)).status).toBe(200);
      expect(relay.counts()).toEqual({ sends: 1, retries: 1, dropped: 1, unreachable: 0 });
    } finally {
      await relay.close();
    }
  });

  it('answers 503 with Retry-After while its agent is down', async () => {
    const relay = await startRelay();
    try {
      relay.connect('http://127.0.0.1:9'); // nothing listens on the discard port
      const res = await fetch(`${relay.url}/.well-known/agent-card.json`);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(relay.counts().unreachable).toBe(1);
    } finally {
      await relay.close();
    }
  });
});

describe('the tree agent configuration', () => {
  it('reads its children and mode', () => {
    expect(parseTreeChildren(' http://127.0.0.1:1 ,http://127.0.0.1:2,')).toEqual([
      'http://127.0.0.1:1',
      'http://127.0.0.1:2',
    ]);
    expect(parseTreeChildren(undefined)).toEqual([]);
    expect(() => parseTreeChildren('ftp://x')).toThrow(/http or https/);
    expect(() => parseTreeChildren('not a url')).toThrow(/not a URL/);
    expect(parseTreeMode(undefined)).toBe('once');
    expect(parseTreeMode('naive')).toBe('naive');
    expect(() => parseTreeMode('sometimes')).toThrow(/once or naive/);
  });
});
