/**
 * Every call of the Redis store answers within a bound (ADR 0127). A Redis that accepted the connection and then
 * went silent (a stalled network, a frozen host, a proxy that holds bytes) answers nothing and closes nothing, and
 * neither node-redis nor ioredis times out a command by default: a send or a worker would wait on it for good.
 * This wrapper, around any `RedisConnection` (so around both drivers and whatever client was passed in), rejects
 * a command with `STORE_TIMEOUT` once it has gone `timeoutMs` without an answer.
 *
 * Such a command may still have run: Redis may have executed it and the answer be lost on the way, exactly the
 * lost answer ADR 0052 makes every write safe against (the worker's retried commit meets its own write id, the
 * admission's retried creation meets its own task id), so the error says so and nobody treats it as "not done".
 * The driver's promise is left to settle on its own (its answer, when it comes, is dropped).
 *
 * One timer per connection, not one per command: calls wait in a Map in the order they started, all with the
 * same timeout, so the oldest is first and a sweep stops at the first that is still in time. A call is rejected
 * between `timeoutMs` and `timeoutMs + timeoutMs / SWEEPS` after it started.
 */
import { StoreError } from '../sql/store-error.js';
import type { RedisConnection, RedisReply } from './redis-connection.js';

/** The default bound on one Redis call (ADR 0127). */
export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 5000;
/** Sweeps per timeout period: the precision of the bound. */
const SWEEPS = 10;

interface Waiting {
  readonly startedAt: number;
  readonly what: string;
  readonly reject: (err: Error) => void;
}

/** Checks a timeout option: a positive whole number of ms. */
export function checkCommandTimeout(ms: number): number {
  if (!Number.isSafeInteger(ms) || ms <= 0)
    throw new StoreError('BAD_OPTIONS', 'commandTimeoutMs must be a positive whole number of ms');
  return ms;
}

/** The error of a call Redis did not answer in time. Names the command, never its arguments (keys, data). */
export function redisTimeoutError(what: string, ms: number): StoreError {
  return new StoreError(
    'STORE_TIMEOUT',
    `Redis did not answer ${what} within ${ms} ms (a silent connection or an overloaded server); ` +
      'it may have run: its answer, not necessarily the command, was lost',
  );
}

/** `conn` with every call bounded by `timeoutMs`. */
export function withCommandTimeout(conn: RedisConnection, timeoutMs: number): RedisConnection {
  const ms = checkCommandTimeout(timeoutMs);
  const waiting = new Map<number, Waiting>();
  let next = 0;
  let timer: ReturnType<typeof setInterval> | undefined;

  const sweep = () => {
    const now = Date.now();
    for (const [id, w] of waiting) {
      if (now - w.startedAt < ms) break;
      waiting.delete(id);
      w.reject(redisTimeoutError(w.what, ms));
    }
    if (waiting.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };

  const bounded = <T>(what: string, call: () => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const id = next++;
      waiting.set(id, { startedAt: Date.now(), what, reject });
      if (timer === undefined) {
        timer = setInterval(sweep, Math.max(1, Math.ceil(ms / SWEEPS)));
        timer.unref();
      }
      call().then(
        (v) => {
          if (waiting.delete(id)) resolve(v);
        },
        (err: unknown) => {
          if (waiting.delete(id)) reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });

  return {
    send: (args, routeKey): Promise<RedisReply> =>
      bounded(args[0] ?? 'a command', () => conn.send(args, routeKey)),
    sendKeyless: (args, routeKey): Promise<RedisReply> =>
      bounded(args[0] ?? 'a command', () =>
        conn.sendKeyless ? conn.sendKeyless(args, routeKey) : conn.send(args, routeKey),
      ),
    subscribe: (channel, listener) => bounded('SSUBSCRIBE', () => conn.subscribe(channel, listener)),
    unsubscribe: (channel, listener) => bounded('SUNSUBSCRIBE', () => conn.unsubscribe(channel, listener)),
    close: () => conn.close(),
  };
}
