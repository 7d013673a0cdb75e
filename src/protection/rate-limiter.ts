/**
 * Request-rate limits shared by replicas: a sliding window approximated from two fixed windows
 * (the previous window's count weighted by how much of it still overlaps, plus the current one),
 * checked and counted in one atomic step (a Lua script in Redis), every key with a TTL. Only
 * admitted requests are counted, so a client that waits for `Retry-After` gets through.
 */
import type { RedisClient } from '../redis';
import { gatewayError, type GatewayError } from '../errors';
import type { LogEvents } from '../observability/log-events';
import type { GatewayMetrics } from '../observability/metrics';

export interface RateDecision {
  readonly allowed: boolean;
  /** When refused: how long until a request would be admitted (ms, at least 1 s). */
  readonly retryAfterMs: number;
}

export interface RateLimitStore {
  readonly kind: 'memory' | 'redis';
  /**
   * Admits and counts a request of `weight` (default 1: root fields for the session limit) under
   * `key` if the weights admitted in the last `windowMs` leave room for it within `limit`. A
   * negative weight gives back what was counted, never below 0 in the current window: a hit
   * counted in the previous window and given back in this one would otherwise bank a hit here.
   */
  hit(key: string, limit: number, windowMs: number, weight?: number): Promise<RateDecision>;
  /** Forgets what `key` counted (a successful login clears its failures). */
  reset(key: string, windowMs: number): Promise<void>;
}

/** A refusal over the limit `limit`: logged, counted, RATE_LIMITED with Retry-After (never the identifier). */
export function overLimit(observers: { readonly log: LogEvents; readonly metrics: GatewayMetrics }, limit: string, decision: RateDecision): GatewayError {
  observers.log.rateLimited({ limit });
  observers.metrics.rateLimited(limit);
  return gatewayError('RATE_LIMITED', undefined, { headers: { 'retry-after': String(Math.ceil(decision.retryAfterMs / 1000)) } });
}

/** `sgw:rate:{<key>}:<window number>`: both windows of a key share its hash tag. */
const windowKey = (key: string, index: number) => `sgw:rate:{${key}}:${index}`;

function decide(previous: number, current: number, limit: number, windowMs: number, elapsed: number, weight: number): RateDecision {
  const estimate = previous * ((windowMs - elapsed) / windowMs) + current;
  if (estimate + weight <= limit) return { allowed: true, retryAfterMs: 0 };
  // Heavier than the whole limit: never admitted; a window is as good an answer as any.
  if (weight > limit) return { allowed: false, retryAfterMs: Math.max(1_000, windowMs) };
  // Within this window the previous window's weight falls linearly; that is enough only if the
  // current count alone leaves room.
  const withinWindow = previous > 0 ? ((estimate + weight - limit) / previous) * windowMs : Number.POSITIVE_INFINITY;
  let waitMs: number;
  if (current + weight <= limit && withinWindow <= windowMs - elapsed) {
    waitMs = withinWindow;
  } else {
    // Past this window, this window's count becomes the previous one, weighted down from 1.
    waitMs = windowMs - elapsed + (current > 0 ? Math.max(0, windowMs * (1 - (limit - weight) / current)) : 0);
  }
  return { allowed: false, retryAfterMs: Math.max(1_000, Math.ceil(waitMs)) };
}

export function createMemoryRateLimitStore(clock: () => number = Date.now): RateLimitStore {
  const counts = new Map<string, { count: number; expiresAt: number }>();
  let lastSweep = 0;
  const read = (key: string, now: number) => {
    const entry = counts.get(key);
    return entry && entry.expiresAt > now ? entry.count : 0;
  };
  return {
    kind: 'memory',
    hit(key, limit, windowMs, weight = 1) {
      const now = clock();
      if (now - lastSweep > windowMs) {
        lastSweep = now;
        for (const [name, entry] of counts) if (entry.expiresAt <= now) counts.delete(name);
      }
      const index = Math.floor(now / windowMs);
      const current = read(windowKey(key, index), now);
      const decision = decide(read(windowKey(key, index - 1), now), current, limit, windowMs, now - index * windowMs, weight);
      if (decision.allowed) counts.set(windowKey(key, index), { count: Math.max(0, current + weight), expiresAt: (index + 2) * windowMs });
      return Promise.resolve(decision);
    },
    reset(key, windowMs) {
      const index = Math.floor(clock() / windowMs);
      counts.delete(windowKey(key, index));
      counts.delete(windowKey(key, index - 1));
      return Promise.resolve();
    },
  };
}

// KEYS: previous window, current window. ARGV: limit, window ms, elapsed ms in the current window, weight.
const HIT = `
local previous = tonumber(redis.call('GET', KEYS[1]) or '0')
local current = tonumber(redis.call('GET', KEYS[2]) or '0')
local window = tonumber(ARGV[2])
local weight = tonumber(ARGV[4])
local estimate = previous * ((window - tonumber(ARGV[3])) / window) + current
if estimate + weight > tonumber(ARGV[1]) then return {0, previous, current} end
local counted = math.max(0, current + weight)
redis.call('SET', KEYS[2], counted, 'PX', window * 2)
return {1, previous, counted}
`;

interface RateCommands {
  sgwRateHit(previous: string, current: string, limit: number, windowMs: number, elapsed: number, weight: number): Promise<[number, number, number]>;
}

export function createRedisRateLimitStore(redis: RedisClient, clock: () => number = Date.now): RateLimitStore {
  if (!('sgwRateHit' in redis)) redis.defineCommand('sgwRateHit', { numberOfKeys: 2, lua: HIT });
  const commands = redis as unknown as RedisClient & RateCommands;
  return {
    kind: 'redis',
    async hit(key, limit, windowMs, weight = 1) {
      const now = clock();
      const index = Math.floor(now / windowMs);
      const elapsed = now - index * windowMs;
      const [admitted, previous, current] = await commands.sgwRateHit(windowKey(key, index - 1), windowKey(key, index), limit, windowMs, elapsed, weight);
      if (admitted === 1) return { allowed: true, retryAfterMs: 0 };
      return decide(Number(previous), Number(current), limit, windowMs, elapsed, weight);
    },
    async reset(key, windowMs) {
      const index = Math.floor(clock() / windowMs);
      // One command, both keys in the hash tag's slot: atomic.
      await redis.del(windowKey(key, index - 1), windowKey(key, index));
    },
  };
}

/**
 * A limit that fails open: while its store cannot be reached, each process counts for itself
 * (so the limit still holds per replica).
 */
export function failOpenRateLimit(store: RateLimitStore, onError: (error: unknown) => void, onOk: () => void): RateLimitStore {
  const local = createMemoryRateLimitStore();
  return {
    kind: store.kind,
    async hit(key, limit, windowMs, weight) {
      try {
        const decision = await store.hit(key, limit, windowMs, weight);
        // A decision from a block the batched limit held (batched-rate-limit.ts) asked nothing of the store.
        if (!('local' in decision)) onOk();
        return decision;
      } catch (error) {
        onError(error);
        return local.hit(key, limit, windowMs, weight);
      }
    },
    async reset(key, windowMs) {
      await local.reset(key, windowMs);
      await store.reset(key, windowMs).then(onOk, onError);
    },
  };
}
