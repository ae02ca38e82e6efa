/**
 * Waiting for a batch to stop growing (ADR 0050), for both stores' group commits. Each turn of the event loop
 * (`setImmediate`, never a timer) lets the loop read the I/O that is ready: requests, agents finishing their
 * turns. While a turn added to the batch, it waits one more, at most `MAX_SETTLE_TURNS`; then it goes. It never
 * sleeps, so an idle server pays one empty turn of the loop (microseconds), and under load each extra turn is work
 * the server had to do anyway, done before the batch is sent rather than after.
 */

/**
 * Turns a batch may wait while it keeps growing. The cap bounds the wait under a steady stream, where the batch
 * would otherwise never stop growing; measured at 16 connections, 4 batched best on both stores.
 */
export const MAX_SETTLE_TURNS = 4;

/** Calls `then` once `size()` stopped growing from one turn of the event loop to the next, or after `maxTurns`. */
export function whenSettled(size: () => number, then: () => void, maxTurns = MAX_SETTLE_TURNS): void {
  let seen = 0;
  let turns = 0;
  const turn = (): void => {
    const now = size();
    if (now > seen && turns < maxTurns) {
      seen = now;
      turns++;
      setImmediate(turn);
      return;
    }
    then();
  };
  setImmediate(turn);
}
