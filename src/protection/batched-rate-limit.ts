/**
 * A shared limit without a Redis round trip per request: each replica reserves a small block of a
 * key's limit at once (counted in Redis when reserved, by the same atomic script: rate-limiter.ts)
 * and admits the key's next requests from it locally. Nothing is ever admitted that was not
 * counted first, so the limit holds across replicas as it did; what changes is the other side:
 *
 * - a block's unused units stay counted while its replica holds them: another replica may refuse a
 *   request of that key although up to `block - 1` units per replica are reserved and unused, for
 *   at most `idleMs` and a quarter after the key's last request on that replica, when they are
 *   given back (a negative hit, rate-limiter.ts);
 * - units reserved in one window and unused when it ends stay counted in it (the next window then
 *   weighs them as its previous one): at most `block - 1` per replica and key.
 *
 * One reservation of a key is on its way at a time. A request that finds one waits for it (one
 * round trip at most), then takes from the block, or else asks the store for itself, as without
 * batching: concurrent requests never queue behind each other's reservations. A refused block
 * (the key is near its limit) turns batching off for that key until its window ends, so each
 * request there is one exact decision, as before.
 *
 * The block is at most MAX_BLOCK and at most a hundredth of the limit, so limits under 200 (the
 * login limits, the anonymous limit's default 30/1m, most service accounts) keep one round trip
 * per request, exact as before. docs/security.md states the bound. Issue 44: the session limit's
 * round trip was the one Redis command of a hot request (about 10 % of its CPU at 0 ms upstream
 * latency).
 */
import type { RateDecision, RateLimitStore } from './rate-limiter';

/** The most units reserved at once. */
export const MAX_BLOCK = 8;
/** Unused units go back once their key has had no request on this replica for this long. */
export const IDLE_MS = 1_000;

/** Admitted from a block: no store command was made (failOpenRateLimit then says nothing of the store's health). */
export interface LocalDecision extends RateDecision {
  readonly local: true;
}
const FROM_BLOCK: LocalDecision = Object.freeze({ allowed: true, retryAfterMs: 0, local: true });

interface Reserve {
  /** The store's key and window length they were counted under. */
  readonly key: string;
  readonly windowMs: number;
  /** The fixed window (number) the units were counted in. */
  readonly window: number;
  /** Units counted in Redis and not yet admitted. */
  left: number;
  lastUsed: number;
  /** The key's reservation on its way (its request holds the units left meanwhile). */
  pending?: Promise<RateDecision>;
  /** A block was refused in this window: each request of the key is decided by the store. */
  exact?: boolean;
}

export interface BatchedRateLimit extends RateLimitStore {
  /** Gives every unused unit back (at shutdown; best effort). */
  release(): Promise<void>;
  /** Stops the timer that gives idle keys' units back. */
  close(): void;
}

/** The units reserved at once for a limit: 1 (no batching) below 200. */
export const blockFor = (limit: number): number => Math.max(1, Math.min(MAX_BLOCK, Math.floor(limit / 100)));

export function batchedRateLimit(store: RateLimitStore, { clock = Date.now, idleMs = IDLE_MS }: { readonly clock?: () => number; readonly idleMs?: number } = {}): BatchedRateLimit {
  /** By `<window ms>:<key>`: a key may be limited over more than one window length. */
  const reserves = new Map<string, Reserve>();
  const nameOf = (key: string, windowMs: number) => `${windowMs}:${key}`;

  /** Forgets the key's reserve and gives its unused units back, unless their window has ended. */
  const giveBack = (name: string, reserve: Reserve) => {
    reserves.delete(name);
    const { key, windowMs } = reserve;
    if (reserve.left <= 0 || reserve.window !== Math.floor(clock() / windowMs)) return Promise.resolve();
    return store.hit(key, Number.MAX_SAFE_INTEGER, windowMs, -reserve.left).then(
      () => undefined,
      () => undefined,
    );
  };

  const sweep = setInterval(() => {
    const now = clock();
    for (const [name, reserve] of reserves) if (!reserve.pending && now - reserve.lastUsed >= idleMs) void giveBack(name, reserve);
  }, Math.max(1, Math.floor(idleMs / 4)));
  sweep.unref();

  /** Takes `weight` from the key's block when it holds enough (the caller checked its window). */
  const take = (reserve: Reserve, weight: number, now: number): LocalDecision | undefined => {
    if (reserve.left < weight) return undefined;
    reserve.left -= weight;
    reserve.lastUsed = now;
    return FROM_BLOCK;
  };

  /**
   * Counts a block in the store for the key's next requests, this one's `weight` first, the units
   * still held (`held`) spent with it. A refusal asks for exactly what this request needs, then
   * leaves the key to exact decisions for the rest of the window.
   */
  const reserve = async (name: string, key: string, limit: number, windowMs: number, window: number, weight: number, held: number): Promise<RateDecision> => {
    const need = weight - held;
    const block = Math.max(need, blockFor(limit));
    let decision = await store.hit(key, limit, windowMs, block);
    let got = block;
    const exact = !decision.allowed;
    if (exact && block > need) {
      decision = await store.hit(key, limit, windowMs, need);
      got = need;
    }
    // Admitted: the held units and `need` of the new ones go to this request; the rest is left.
    reserves.set(name, { key, windowMs, window, left: decision.allowed ? got - need : held, lastUsed: clock(), ...(exact ? { exact } : {}) });
    return decision;
  };

  return {
    kind: store.kind,
    async hit(key, limit, windowMs, weight = 1) {
      if (weight <= 0 || blockFor(limit) === 1) return store.hit(key, limit, windowMs, weight);
      const name = nameOf(key, windowMs);
      const now = clock();
      const window = Math.floor(now / windowMs);
      let current = reserves.get(name);
      if (current?.pending) {
        // One round trip at most: the reservation on its way (its error is this request's too),
        // then its block, or the store for this request alone.
        await current.pending;
        current = reserves.get(name);
        const taken = current && !current.pending && current.window === window ? take(current, weight, clock()) : undefined;
        return taken ?? store.hit(key, limit, windowMs, weight);
      }
      if (current && current.window !== window) current = undefined;
      const taken = current ? take(current, weight, now) : undefined;
      if (taken) return taken;
      if (current?.exact) return store.hit(key, limit, windowMs, weight);
      // This request holds the key's units left while its reservation is on its way.
      const held = current?.left ?? 0;
      const holder: Reserve = { key, windowMs, window, left: 0, lastUsed: now };
      const pending = reserve(name, key, limit, windowMs, window, weight, held);
      holder.pending = pending;
      reserves.set(name, holder);
      try {
        return await pending;
      } catch (error) {
        // The store failed: what was held stays held (counted, not admitted).
        if (reserves.get(name) === holder) reserves.set(name, { key, windowMs, window, left: held, lastUsed: now });
        throw error;
      }
    },
    async reset(key, windowMs) {
      reserves.delete(nameOf(key, windowMs));
      await store.reset(key, windowMs);
    },
    async release() {
      await Promise.all([...reserves].filter(([, reserve]) => !reserve.pending).map(([name, reserve]) => giveBack(name, reserve)));
    },
    close() {
      clearInterval(sweep);
    },
  };
}
