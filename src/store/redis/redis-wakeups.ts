/**
 * Wake-ups across processes (ADR 0118). Every commit, and every deletion of a task, is announced by the script
 * that made it on its scope's sharded channel (SPUBLISH, in the scope's slot), the message being the task id.
 * A process subscribes to a scope's channel while something in it waits on one of its tasks (and a little
 * longer, so a busy scope is not subscribed and unsubscribed per request), and turns each message into a wake-up
 * of the local waiters (`EventNotifier`). Pub/sub delivers at most once: a message lost in a reconnect is made up
 * for by the waiters' slow poll, a safety net, not the way events arrive.
 */
import type { EventNotifier } from '../sql/event-notifier.js';
import { taskKey } from '../sql/event-notifier.js';
import type { RedisConnection } from './redis-connection.js';
import type { RedisKeys } from './redis-keys.js';
import { scopeOfTag } from './redis-keys.js';

/** How long a channel nobody waits on stays subscribed. */
const LINGER_MS = 30_000;
/** Longest wait for the unsubscribes when the store closes. */
const CLOSE_WAIT_MS = 1000;

interface Channel {
  users: number;
  ready: Promise<void>;
  listener: (message: string) => void;
  /** `ready` has settled: holding the channel now waits for nothing. */
  settled: boolean;
  linger?: ReturnType<typeof setTimeout>;
}

export class RedisWakeups {
  readonly #channels = new Map<string, Channel>();
  #closed = false;

  constructor(
    private readonly conn: RedisConnection,
    private readonly keys: RedisKeys,
    private readonly notifier: EventNotifier,
  ) {}

  /**
   * Holds the scope's channel subscribed until the returned release is called; resolves once the subscription
   * is in place, so a commit after it is heard. A failed subscription is not fatal: the wait polls. `waited` says
   * the subscription was not in place yet: a local commit may have been announced while this waited, before
   * the caller registered its wait, so the caller reads the task once instead of trusting its own record.
   */
  async hold(tag: string): Promise<{ release: () => void; waited: boolean }> {
    if (this.#closed) return { release: () => {}, waited: false };
    const name = this.keys.wakeChannel(tag);
    let ch = this.#channels.get(name);
    if (ch === undefined) {
      const scope = scopeOfTag(tag);
      const listener = (id: string) => this.notifier.notify(taskKey(scope, id));
      // A subscription that failed or went unanswered (a silent subscriber connection, ADR 0127) is dropped, so
      // the next waiter tries again; one that completes late is left at once, so it holds no stray listener.
      const ready = this.conn.subscribe(name, listener).catch(() => {
        if (this.#channels.get(name)?.listener === listener) this.#channels.delete(name);
        void this.conn.unsubscribe(name, listener).catch(() => undefined);
      });
      ch = { users: 0, ready, listener, settled: false };
      const made = ch;
      void ready.then(() => (made.settled = true));
      this.#channels.set(name, ch);
    }
    const held = ch;
    held.users++;
    if (held.linger !== undefined) {
      clearTimeout(held.linger);
      held.linger = undefined;
    }
    const waited = !held.settled;
    if (waited) await held.ready;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      if (--held.users > 0 || this.#closed) return;
      held.linger = setTimeout(() => {
        if (held.users > 0 || this.#channels.get(name) !== held) return;
        this.#channels.delete(name);
        void this.conn.unsubscribe(name, held.listener).catch(() => undefined);
      }, LINGER_MS);
      held.linger.unref();
    };
    return { release, waited };
  }

  /** Scopes subscribed now (for tests and diagnostics). */
  get subscribed(): number {
    return this.#channels.size;
  }

  /**
   * Stops listening: every channel this store subscribed to is left. Waits for that at most `CLOSE_WAIT_MS`: a
   * Redis that is down must not hold a closing server (its subscriber connection is closed next anyway).
   */
  async close(): Promise<void> {
    this.#closed = true;
    const channels = [...this.#channels];
    this.#channels.clear();
    const left = Promise.all(
      channels.map(async ([name, ch]) => {
        if (ch.linger !== undefined) clearTimeout(ch.linger);
        await ch.ready;
        await this.conn.unsubscribe(name, ch.listener).catch(() => undefined);
      }),
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([left, new Promise((r) => (timer = setTimeout(r, CLOSE_WAIT_MS)))]);
    clearTimeout(timer);
  }
}
