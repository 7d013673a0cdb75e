/**
 * A very short in-process memory of resolved sessions (SESSION_CACHE_TTL, at most a second), so a
 * browser's burst of requests costs one session-store round trip, not one each.
 *
 * What keeps it safe:
 * - An entry lives at most `ttlMs` after the store touch that produced it, and never past the
 *   session's absolute end. A logout or a refused credential on another replica therefore takes
 *   effect here within `ttlMs` even if nothing is heard.
 * - Every change of a session (logout, an upstream refusal, a rotated token) is published on a
 *   Redis channel; each replica drops its entry as soon as the message arrives (about a
 *   millisecond on one network).
 * - Nothing is served from memory unless the invalidation channel is subscribed and the store's
 *   connection is up: after any disconnection (when messages may have been missed) the memory is
 *   emptied and every request goes to the store again, which fails closed.
 * - A store answer that raced an invalidation of the same session is used once and not kept.
 *
 * A request served from memory does not extend the session's idle life in the store; the next
 * touch does. The idle timeout can therefore end a session up to `ttlMs` early, never late;
 * `ttlMs` is capped at a quarter of the idle timeout.
 */
import type { Redis } from 'ioredis';

export const SESSION_INVALIDATION_CHANNEL = 'sgw:session:invalidate';

export interface SessionCacheOptions<T> {
  readonly ttlMs: number;
  readonly maxEntries: number;
  readonly clock: () => number;
  /** The session store's connection: publishes invalidations; memory is bypassed while it is not ready. */
  readonly redis: Redis;
  /** A dedicated connection for the channel (a subscribed connection runs no other commands). */
  readonly subscriber: Redis;
  /** The end of an entry's value's life, whatever the TTL (the session's absolute end). */
  readonly endOf: (value: T) => number;
  readonly onLookup?: (result: 'hit' | 'miss') => void;
}

interface Entry<T> {
  readonly value: T;
  readonly until: number;
}

export interface SessionCache<T> {
  /** The remembered value, if it may still be used now (counted as a hit). */
  get(key: string): T | undefined;
  /**
   * Runs `load` (a store touch; counted as a miss) and remembers what `keep` accepts, unless the
   * key was invalidated while `load` ran.
   */
  load<R>(key: string, load: () => Promise<R>, keep: (result: R) => T | undefined): Promise<R>;
  /** Forgets the key here and on every other replica. Never throws. */
  invalidate(key: string): Promise<void>;
  readonly size: number;
  close(): Promise<void>;
}

export function createSessionCache<T>(options: SessionCacheOptions<T>): SessionCache<T> {
  const { ttlMs, maxEntries, clock, redis, subscriber, endOf } = options;
  const entries = new Map<string, Entry<T>>();
  /** Invalidations seen per key while loads of that key were in flight. */
  const inFlight = new Map<string, { loads: number; invalidated: boolean }>();
  let subscribed = false;

  const forgetAll = () => {
    subscribed = false;
    entries.clear();
    for (const flight of inFlight.values()) flight.invalidated = true;
  };
  const forget = (key: string) => {
    entries.delete(key);
    const flight = inFlight.get(key);
    if (flight) flight.invalidated = true;
  };

  subscriber.on('message', (channel: string, key: string) => {
    if (channel === SESSION_INVALIDATION_CHANNEL) forget(key);
  });
  // Messages can be lost while disconnected: forget everything until subscribed again.
  for (const event of ['close', 'reconnecting', 'end', 'error'] as const) subscriber.on(event, forgetAll);
  for (const event of ['close', 'reconnecting', 'end'] as const) redis.on(event, () => entries.clear());
  const subscribe = () => {
    subscriber.subscribe(SESSION_INVALIDATION_CHANNEL).then(
      () => {
        if (subscriber.status === 'ready') subscribed = true;
      },
      () => forgetAll(),
    );
  };
  subscriber.on('ready', subscribe);
  if (subscriber.status === 'ready') subscribe();

  const usable = () => subscribed && redis.status === 'ready' && subscriber.status === 'ready';

  return {
    get(key) {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      if (!usable() || entry.until <= clock()) {
        entries.delete(key);
        return undefined;
      }
      options.onLookup?.('hit');
      return entry.value;
    },

    async load(key, load, keep) {
      options.onLookup?.('miss');
      let flight = inFlight.get(key);
      if (!flight) inFlight.set(key, (flight = { loads: 0, invalidated: false }));
      flight.loads++;
      try {
        const result = await load();
        const value = keep(result);
        if (value !== undefined && !flight.invalidated && usable()) {
          const now = clock();
          const until = Math.min(now + ttlMs, endOf(value));
          if (until > now) {
            // Oldest first out: a Map iterates in insertion order.
            entries.delete(key);
            entries.set(key, { value, until });
            if (entries.size > maxEntries) {
              const oldest = entries.keys().next();
              if (!oldest.done) entries.delete(oldest.value);
            }
          }
        }
        return result;
      } finally {
        if (--flight.loads === 0) inFlight.delete(key);
      }
    },

    async invalidate(key) {
      forget(key);
      await redis.publish(SESSION_INVALIDATION_CHANNEL, key).catch(() => undefined);
    },

    get size() {
      return entries.size;
    },

    async close() {
      forgetAll();
      await subscriber.quit().catch(() => subscriber.disconnect());
    },
  };
}
