/**
 * Hosting in Hono: Hono hands routes the web `Request`, so the fetch handler is mounted as it is.
 * Tested in test/examples/hosting.test.ts.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import { echoAgent, type Hosted } from './mount.js';

export async function startOnHono(): Promise<Hosted> {
  const agent = echoAgent();
  const app = new Hono();
  // Every A2A route (card, JSON-RPC, REST, streams) goes to the agent; add your own routes before this one.
  app.all('*', (c) => agent.fetch(c.req.raw));
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await agent.close();
    },
  };
}
