import { describe, expect, it } from 'vitest';
import { startOnExpress } from '../../examples/hosting/express.js';
import { startOnFastify } from '../../examples/hosting/fastify.js';
import { startOnHono } from '../../examples/hosting/hono.js';
import type { Hosted } from '../../examples/hosting/mount.js';
import { A2AClient } from '../../src/client/index.js';

describe.each([
  ['Hono', startOnHono],
  ['Express', startOnExpress],
  ['Fastify', startOnFastify],
] as const)('example: hosted in %s', (_name, start) => {
  it('serves the card, a keyed send over JSON-RPC and REST, a stream, and refuses a bad body', async () => {
    const hosted: Hosted = await start();
    try {
      for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
        const client = await A2AClient.fromCardUrl(hosted.url, { preferredBindings: [binding] });
        const answer = await client.send(`hi over ${binding}`, {
          key: `hosting-example-${binding === 'JSONRPC' ? 'rpc' : 'rest'}`,
        });
        expect('task' in answer && answer.task.artifacts?.[0]?.parts).toEqual([
          { text: `echo: hi over ${binding}` },
        ]);
        const states: string[] = [];
        for await (const event of client.sendStream(`stream over ${binding}`)) {
          if ('statusUpdate' in event) states.push(event.statusUpdate.status.state);
          if ('task' in event) states.push(event.task.status.state);
        }
        expect(states.at(-1)).toBe('TASK_STATE_COMPLETED');
      }
      const bad = await fetch(`${hosted.url}/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body: '{not json',
      });
      expect(bad.status).toBe(400);
    } finally {
      await hosted.close();
    }
  });
});
