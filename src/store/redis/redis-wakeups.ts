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

interface Channel {
  users: number;
  ready: Promise<void>;
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
   * is in place, so a commit after it is heard. A failed subscription is not fatal: the wait polls.
   */
  async hold(tag: string): Promise<() => void> {
    if (this.#closed) return () => {};
    const name = this.keys.wakeChannel(tag);
    let ch = this.#channels.get(name);
    if (ch === undefined) {
      const scope = scopeOfTag(tag);
      const ready = this.conn
        .subscribe(name, (id) => this.notifier.notify(taskKey(scope, id)))
        .catch(() => {
          this.#channels.delete(name);
        });
      ch = { users: 0, ready };
      this.#channels.set(name, ch);
    }
    const held = ch;
    held.users++;
    if (held.linger !== undefined) {
      clearTimeout(held.linger);
      held.linger = undefined;
    }
    await held.ready;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--held.users > 0 || this.#closed) return;
      held.linger = setTimeout(() => {
        if (held.users > 0 || this.#channels.get(name) !== held) return;
        this.#channels.delete(name);
        void this.conn.unsubscribe(name).catch(() => undefined);
      }, LINGER_MS);
      held.linger.unref();
    };
  }

  /** Scopes subscribed now (for tests and diagnostics). */
  get subscribed(): number {
    return this.#channels.size;
  }

  close(): void {
    this.#closed = true;
    for (const ch of this.#channels.values()) if (ch.linger !== undefined) clearTimeout(ch.linger);
    this.#channels.clear();
  }
}
