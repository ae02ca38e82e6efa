/**
 * `serve` checks that it can listen before it opens the store and runs start-up recovery: a port already in use
 * (a second `serve` in another terminal, a server left running) would otherwise be found only after recovery had
 * taken over, resumed or failed the tasks of the store, on behalf of a server that then does not start.
 */
import { createServer } from 'node:net';

/**
 * Listens on `host:port` and lets go at once; rejects with the listen error (`EADDRINUSE`, `EACCES`, …). Port 0
 * (any free port) cannot be taken, so it is not checked. Another process can still take the port in the moment
 * between this check and the real listen; that listen then fails as clearly, only later.
 */
export async function checkCanListen(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen({ host, port, exclusive: true }, () => {
      probe.off('error', reject);
      resolve();
    });
  });
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}
