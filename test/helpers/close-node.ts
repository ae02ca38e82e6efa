/**
 * Closes a test's node:http server without waiting out the keep-alive grace. `NodeServerHandle.close` leaves idle
 * keep-alive connections to the caller for up to its grace (2 s, ADR 0088), and `fetch` keeps every connection it
 * used alive, so a test that only awaited `close()` spent two seconds on nothing. The test is over: nothing it
 * still cares about is in flight, so its idle connections go at once, as `a2a-once serve` does after its drain.
 */
import type { NodeServerHandle } from '../../src/server/node/index.js';

export async function closeNode(handle: NodeServerHandle): Promise<void> {
  const closed = handle.close();
  handle.server.closeIdleConnections();
  await closed;
}
