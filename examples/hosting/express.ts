/**
 * Hosting in Express: `createRequestListener` turns the fetch handler into a node:http listener, which Express
 * mounts as middleware. Mount it before any body parser: the agent reads the raw body itself.
 * Tested in test/examples/hosting.test.ts.
 */
import express from 'express';
import type { AddressInfo } from 'node:net';
import { createRequestListener } from 'a2a-once/server/node';
import { echoAgent, type Hosted } from './mount.js';

export async function startOnExpress(): Promise<Hosted> {
  const agent = echoAgent();
  const app = express();
  const a2a = createRequestListener(agent.fetch);
  app.use((req, res) => a2a(req, res));
  const server = await new Promise<ReturnType<typeof app.listen>>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await agent.close();
    },
  };
}
