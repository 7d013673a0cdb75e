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
 * - A store answer that raced an invalidation of the same session, or a disconnection, or that was
 *   read while the channel was down, is used once and not kept; an entry's life counts from before
 *   the store was asked.
 * - Once a store command fails, memory is emptied and bypassed until one succeeds, so a hung
 *   store stops serving remembered sessions as soon as any request finds it out.
 *
 * A request served from memory does not extend the session's idle life in the store; the next
 * touch does. The idle timeout can therefore end a session up to `ttlMs` early, never late;
 * `ttlMs` is capped at a quarter of the idle timeout.
 */
import type { RedisClient } from '../redis';

export const SESSION_INVALIDATION_CHANNEL = 'sgw:session:invalidate';

export interface SessionCacheOptions<T> {
  readonly ttlMs: number;
  readonly maxEntries: number;
  readonly clock: () => number;
  /** The session store's connection: publishes invalidations; memory is bypassed while it is not ready. */
  readonly redis: RedisClient;
  /** A dedicated connection for the channel (a subscribed connection runs no other commands). */
  readonly subscriber: RedisClient;
  /** The end of an entry's value's life, whatever the TTL (the session's absolute end). */
  readonly endOf: (value: T) => number;
  readonly onLookup?: (result: 'hit' | 'miss') => void;
  /** An invalidation could not be published (the other replicas then forget within the entry's life). */
  readonly onPublishFailed?: () => void;
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
  /** A store command failed: nothing from memory until one succeeds again. */
  let storeFailing = false;
  /** Bumped whenever everything is forgotten: a load that started before keeps nothing. */
  let epoch = 0;
  let closed = false;

  const forgetAll = () => {
    epoch++;
    entries.clear();
    for (const flight of inFlight.values()) flight.invalidated = true;
  };
  const unsubscribed = () => {
    subscribed = false;
    forgetAll();
  };
  const forget = (key: string) => {
    entries.delete(key);
    const flight = inFlight.get(key);
    if (flight) flight.invalidated = true;
  };

  const onMessage = (channel: string, key: string) => {
    if (channel === SESSION_INVALIDATION_CHANNEL) forget(key);
  };
  subscriber.on('message', onMessage);
  // Messages can be lost while disconnected: forget everything until subscribed again.
  const subscriberEvents = ['close', 'reconnecting', 'end', 'error'] as const;
  for (const event of subscriberEvents) subscriber.on(event, unsubscribed);
  // A Cluster client stays ready when one node goes: a lost node may have been the one holding
  // the subscription (the client then subscribes on another), or served some sessions. A lost
  // subscription node that the client never sent a command to goes unnoticed; the entries' life
  // (at most a second) bounds what that costs.
  const onNodeLost = () => {
    unsubscribed();
    if (!closed) subscribe();
  };
  subscriber.on('-node', onNodeLost);
  const storeEvents = ['close', 'reconnecting', 'end', '-node'] as const;
  for (const event of storeEvents) redis.on(event, forgetAll);

  let retry: NodeJS.Timeout | undefined;
  const subscribe = () => {
    clearTimeout(retry);
    subscriber.subscribe(SESSION_INVALIDATION_CHANNEL).then(
      () => {
        if (subscriber.status === 'ready') subscribed = true;
      },
      () => {
        unsubscribed();
        // Refused while the connection stays up (a slow Redis): try again; a reconnection
        // subscribes anyway.
        if (!closed && subscriber.status === 'ready') retry = setTimeout(subscribe, 1_000).unref();
      },
    );
  };
  subscriber.on('ready', subscribe);
  if (subscriber.status === 'ready') subscribe();

  // Entries of sessions nobody asks for again are swept, so memory holds no credential for long.
  const sweep = setInterval(() => {
    const now = clock();
    for (const [key, entry] of entries) if (entry.until <= now) entries.delete(key);
  }, Math.max(1_000, ttlMs * 5));
  sweep.unref();

  /** Invalidation messages can reach this replica. */
  const listening = () => subscribed && redis.status === 'ready' && subscriber.status === 'ready';
  const usable = () => listening() && !storeFailing;

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
      // An entry's life counts from before the store was asked, and nothing read while the
      // channel was down (or that raced a lost connection) is kept.
      const startedAt = clock();
      const startEpoch = epoch;
      let flight = inFlight.get(key);
      if (!flight) inFlight.set(key, (flight = { loads: 0, invalidated: false }));
      flight.loads++;
      if (!listening()) flight.invalidated = true;
      try {
        let result: Awaited<ReturnType<typeof load>>;
        try {
          result = await load();
        } catch (error) {
          // The store is failing: a remembered session must not outlive the outage's discovery.
          storeFailing = true;
          forgetAll();
          throw error;
        }
        storeFailing = false;
        const value = keep(result);
        if (value !== undefined && !flight.invalidated && epoch === startEpoch && usable()) {
          const until = Math.min(startedAt + ttlMs, endOf(value));
          if (until > clock()) {
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
      // A lost message is bounded by the entry's life (at most a second) on the other replicas.
      await redis.publish(SESSION_INVALIDATION_CHANNEL, key).catch(() => options.onPublishFailed?.());
    },

    get size() {
      return entries.size;
    },

    async close() {
      closed = true;
      clearInterval(sweep);
      clearTimeout(retry);
      unsubscribed();
      subscriber.off('message', onMessage);
      subscriber.off('ready', subscribe);
      for (const event of subscriberEvents) subscriber.off(event, unsubscribed);
      subscriber.off('-node', onNodeLost);
      for (const event of storeEvents) redis.off(event, forgetAll);
      await subscriber.quit().catch(() => subscriber.disconnect());
    },
  };
}
