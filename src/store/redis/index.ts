/**
 * `a2a-once/stores/redis`: the Redis task store (docs/guides/redis-store.md). It takes a client you connected (node-redis
 * or ioredis, a single server or a cluster); `redis` is an optional peer, needed only by `openStore('redis://...')`.
 */
export { RedisTaskStore, type RedisTaskStoreOptions } from './redis-task-store.js';
export {
  redisConnection,
  type IoredisLike,
  type NodeRedisClientLike,
  type NodeRedisClusterLike,
  type RedisClientLike,
  type RedisConnection,
  type RedisReply,
} from './redis-connection.js';
export { DEFAULT_REDIS_PREFIX } from './redis-keys.js';
export { checkRedisPersistence, type RedisPersistence } from './redis-persistence.js';
