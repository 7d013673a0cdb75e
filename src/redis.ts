/**
 * Redis connections. Commands fail fast instead of queueing while Redis is away (no offline
 * queue, a command timeout well under a second), and the client keeps reconnecting in the
 * background, so the gateway recovers without a restart when Redis returns.
 */
import { Redis } from 'ioredis';
import type { StoreHealth } from './observability/store-health';

export interface RedisClientOptions {
  readonly url: string;
  /** Where outages are reported (logged once per outage); none: a helper connection whose errors the main one reports. */
  readonly health?: StoreHealth;
  readonly name?: string;
  readonly commandTimeoutMs?: number;
}

export function createRedisClient(options: RedisClientOptions): Redis {
  const redis = new Redis(options.url, {
    connectionName: `statement-gateway:${options.name ?? options.health?.name ?? 'helper'}`,
    enableOfflineQueue: false,
    // Commands issued in one tick leave in one write (one syscall instead of one each): under
    // load the session rate-limit counts of concurrent requests share a write.
    enableAutoPipelining: true,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 500,
    connectTimeout: 1_000,
    // Reconnect forever, at most a second apart.
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
  });
  // ioredis emits an error per reconnection attempt; the health object logs the outage once.
  const health = options.health;
  if (health) {
    redis.on('error', (error: unknown) => health.failed(error));
    redis.on('ready', () => health.ok());
  } else {
    redis.on('error', () => undefined);
  }
  return redis;
}

/** Resolves once the client is ready, or after `ms` (the gateway then starts not ready). */
export function waitForReady(redis: Redis, ms: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      resolve(false);
    }, ms);
    const onReady = () => {
      clearTimeout(timer);
      resolve(true);
    };
    redis.once('ready', onReady);
  });
}
