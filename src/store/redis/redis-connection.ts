/**
 * The Redis client as the store sees it: one `send` of a command as strings, routed by a key of the slot it
 * touches, and sharded pub/sub for wake-ups. The store never imports a driver: `redisConnection` adapts a
 * node-redis client or cluster, or an ioredis client or cluster, by their shapes (ADR 0115), so either can be
 * passed and neither is a dependency.
 */
import { StoreError } from '../sql/store-error.js';

/** A reply as RESP2 delivers it: strings, integers, nil and arrays of those. */
export type RedisReply = string | number | null | RedisReply[];

/** What the Redis store needs of a connection. */
export interface RedisConnection {
  /**
   * Sends one command. `routeKey` names a key in the slot the command touches (a cluster routes by it; a single
   * server ignores it); commands without a key leave it out.
   */
  send(args: readonly string[], routeKey?: string): Promise<RedisReply>;
  /**
   * Sends a command that names no key (`FUNCTION LOAD`) to the node that holds `routeKey`'s slot, or to every
   * master when the client cannot aim a keyless command (ioredis's cluster). Left out, `send` with `routeKey`
   * does it: a single server, or a cluster client that routes by the key it is given.
   */
  sendKeyless?(args: readonly string[], routeKey: string): Promise<RedisReply>;
  /** Subscribes to a sharded channel (SSUBSCRIBE) on a connection of its own; messages carry strings. */
  subscribe(channel: string, listener: (message: string) => void): Promise<void>;
  /** Removes `listener` from the channel (a cluster client may carry other stores' listeners on it too). */
  unsubscribe(channel: string, listener: (message: string) => void): Promise<void>;
  /** Closes what this adapter opened itself (the subscriber connection); the client passed in stays yours. */
  close(): Promise<void>;
}

/** A node-redis (v5, v6) client, by shape. */
export interface NodeRedisClientLike {
  sendCommand(args: string[]): Promise<unknown>;
  duplicate(): NodeRedisClientLike;
  connect(): Promise<unknown>;
  sSubscribe(channel: string, listener: (message: string) => void): Promise<void>;
  sUnsubscribe(channel: string, listener?: (message: string) => void): Promise<void>;
  close?(): Promise<void>;
  quit?(): Promise<unknown>;
}

/** A node-redis cluster, by shape: its `sendCommand` takes the routing key first. */
export interface NodeRedisClusterLike {
  sendCommand(
    firstKey: string | undefined,
    isReadonly: boolean | undefined,
    args: string[],
  ): Promise<unknown>;
  sSubscribe(channel: string, listener: (message: string) => void): Promise<void>;
  sUnsubscribe(channel: string, listener?: (message: string) => void): Promise<void>;
  masters: unknown;
}

/** An ioredis client or cluster, by shape. */
export interface IoredisLike {
  call(command: string, ...args: string[]): Promise<unknown>;
  duplicate(): IoredisLike;
  ssubscribe(...channels: string[]): Promise<unknown>;
  sunsubscribe(...channels: string[]): Promise<unknown>;
  on(event: 'smessage', listener: (channel: string, message: string) => void): unknown;
  quit(): Promise<unknown>;
  /** An ioredis cluster's nodes (absent on a single-server client). */
  nodes?(role: 'master'): IoredisLike[];
}

/** Any client the store accepts. */
export type RedisClientLike = NodeRedisClientLike | NodeRedisClusterLike | IoredisLike | RedisConnection;

/** Adapts `client` (node-redis client or cluster, ioredis, or an adapter already). */
export function redisConnection(client: RedisClientLike): RedisConnection {
  const c = client as unknown as Record<string, unknown>;
  if (typeof c.send === 'function' && typeof c.subscribe === 'function') return client as RedisConnection;
  if (typeof c.call === 'function' && typeof c.ssubscribe === 'function')
    return ioredis(client as IoredisLike);
  if (typeof c.sendCommand === 'function' && 'masters' in c)
    return nodeCluster(client as NodeRedisClusterLike);
  if (typeof c.sendCommand === 'function' && typeof c.duplicate === 'function')
    return nodeClient(client as NodeRedisClientLike);
  throw new StoreError(
    'BAD_OPTIONS',
    'the Redis store needs a node-redis client or cluster, or an ioredis client or cluster',
  );
}

/**
 * A reply in the RESP2 shapes the store reads: node-redis speaks RESP3 by default, which hands maps (CONFIG GET)
 * as objects; they become flat arrays of field and value, as RESP2 sends them.
 */
export function asResp2(reply: unknown): RedisReply {
  if (reply === null || reply === undefined) return null;
  if (typeof reply === 'string' || typeof reply === 'number') return reply;
  if (typeof reply === 'boolean') return reply ? 1 : null;
  if (Buffer.isBuffer(reply)) return reply.toString('utf8');
  if (Array.isArray(reply)) return reply.map(asResp2);
  if (reply instanceof Map) return [...reply].flatMap(([k, v]) => [asResp2(k), asResp2(v)]);
  if (typeof reply === 'object') return Object.entries(reply).flatMap(([k, v]) => [k, asResp2(v)]);
  return typeof reply === 'bigint' ? String(reply) : null;
}

function nodeClient(client: NodeRedisClientLike): RedisConnection {
  let subscriber: Promise<NodeRedisClientLike> | undefined;
  const sub = () =>
    (subscriber ??= (async () => {
      const s = client.duplicate();
      (s as unknown as { on?: (e: string, f: () => void) => void }).on?.('error', () => undefined);
      await s.connect();
      return s;
    })());
  return {
    send: async (args) => asResp2(await client.sendCommand([...args])),
    subscribe: async (channel, listener) => (await sub()).sSubscribe(channel, listener),
    unsubscribe: async (channel, listener) => (await sub()).sUnsubscribe(channel, listener),
    close: async () => {
      if (!subscriber) return;
      const s = await subscriber.catch(() => undefined);
      subscriber = undefined;
      if (s) await (s.close ? s.close() : s.quit?.())?.catch(() => undefined);
    },
  };
}

function nodeCluster(cluster: NodeRedisClusterLike): RedisConnection {
  return {
    send: async (args, routeKey) => asResp2(await cluster.sendCommand(routeKey, false, [...args])),
    // The cluster keeps a subscriber per shard of its own and moves it when slots move.
    subscribe: (channel, listener) => cluster.sSubscribe(channel, listener),
    unsubscribe: (channel, listener) => cluster.sUnsubscribe(channel, listener),
    close: () => Promise.resolve(),
  };
}

function ioredis(client: IoredisLike): RedisConnection {
  let subscriber: IoredisLike | undefined;
  const listeners = new Map<string, (message: string) => void>();
  const sub = () => {
    if (subscriber) return subscriber;
    subscriber = client.duplicate();
    subscriber.on('smessage', (channel, message) => listeners.get(channel)?.(message));
    return subscriber;
  };
  return {
    // ioredis routes a cluster command by its first key argument itself.
    send: async ([command, ...rest]) => asResp2(await client.call(command!, ...rest)),
    // ioredis's cluster sends a keyless command to a node of its choice: every master gets it instead, and the
    // answer waits for all of them (the first refusal, if any, is the answer).
    sendKeyless: async ([command, ...rest]) => {
      if (typeof client.nodes !== 'function') return asResp2(await client.call(command!, ...rest));
      const settled = await Promise.allSettled(
        client.nodes('master').map((node) => node.call(command!, ...rest)),
      );
      const refused = settled.find((r) => r.status === 'rejected');
      if (refused) throw refused.reason;
      return asResp2(settled[0]?.status === 'fulfilled' ? settled[0].value : null);
    },
    subscribe: async (channel, listener) => {
      listeners.set(channel, listener);
      await sub().ssubscribe(channel);
    },
    unsubscribe: async (channel) => {
      listeners.delete(channel);
      await sub().sunsubscribe(channel);
    },
    close: async () => {
      const s = subscriber;
      subscriber = undefined;
      await s?.quit().catch(() => undefined);
    },
  };
}
