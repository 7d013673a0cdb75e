/**
 * A shared limit without a Redis round trip per request: each replica reserves a small block of a
 * key's limit at once (counted in Redis when reserved, by the same atomic script: rate-limiter.ts)
 * and admits the key's next requests from it locally. Nothing is ever admitted that was not
 * counted first, so the limit holds across replicas as it did; what changes is the other side:
 *
 * - a block's unused units stay counted while its replica holds them: another replica may refuse a
 *   request of that key although up to `block - 1` units per replica are reserved and unused, for
 *   at most `idleMs` after the key's last request on that replica, when they are given back (a
 *   negative hit, rate-limiter.ts);
 * - units reserved in one window and unused when it ends stay counted in it (the next window then
 *   weighs them as its previous one): at most `block - 1` per replica and key.
 *
 * The block is at most MAX_BLOCK and at most a hundredth of the limit, so limits under 200 (the
 * anonymous and login limits, most service accounts) keep one round trip per request, exact as
 * before. docs/security.md states the bound. Issue 44: the session limit's round trip was the one
 * Redis command of a hot request (about 10 % of its CPU at 0 ms upstream latency).
 */
import type { RateDecision, RateLimitStore } from './rate-limiter';

/** The most units reserved at once. */
export const MAX_BLOCK = 8;
/** Unused units go back after this long without a request of their key on this replica. */
export const IDLE_MS = 1_000;

const ALLOWED: RateDecision = Object.freeze({ allowed: true, retryAfterMs: 0 });

interface Reserve {
  /** The fixed window (number) the units were counted in. */
  readonly window: number;
  left: number;
  lastUsed: number;
  /** A reservation of this key on its way: the key's other requests wait for it, then look again. */
  pending?: Promise<unknown>;
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
  const reserves = new Map<string, Reserve>();

  const giveBack = (key: string, windowMs: number, reserve: Reserve) => {
    reserves.delete(`${windowMs}:${key}`);
    // Units of a window that has ended stay counted in it (see above); a later window's count is never lowered by them.
    if (reserve.left <= 0 || reserve.window !== Math.floor(clock() / windowMs)) return Promise.resolve();
    return store.hit(key, Number.MAX_SAFE_INTEGER, windowMs, -reserve.left).then(
      () => undefined,
      () => undefined,
    );
  };

  const sweep = setInterval(() => {
    const now = clock();
    for (const [name, reserve] of reserves) {
      if (reserve.pending || now - reserve.lastUsed < idleMs) continue;
      const colon = name.indexOf(':');
      void giveBack(name.slice(colon + 1), Number(name.slice(0, colon)), reserve);
    }
  }, idleMs);
  sweep.unref();

  /** Counts `want` units in the store for the key's reserve; throws as the store does. */
  const reserveMore = async (name: string, key: string, limit: number, windowMs: number, window: number, want: number, need: number): Promise<RateDecision> => {
    let decision = await store.hit(key, limit, windowMs, want);
    let got = want;
    // Near the limit: exactly what this request needs, as without batching.
    if (!decision.allowed && want > need) {
      decision = await store.hit(key, limit, windowMs, need);
      got = need;
    }
    if (!decision.allowed) return decision;
    const current = reserves.get(name);
    const left = current?.window === window ? current.left : 0;
    reserves.set(name, { window, left: left + got - need, lastUsed: clock() });
    return ALLOWED;
  };

  return {
    kind: store.kind,
    async hit(key, limit, windowMs, weight = 1) {
      const block = blockFor(limit);
      if (block === 1 || weight <= 0) return store.hit(key, limit, windowMs, weight);
      const name = `${windowMs}:${key}`;
      for (;;) {
        const now = clock();
        const window = Math.floor(now / windowMs);
        const reserve = reserves.get(name);
        if (reserve?.pending) {
          await reserve.pending.catch(() => undefined);
          continue;
        }
        const left = reserve?.window === window ? reserve.left : 0;
        if (reserve && left >= weight) {
          reserve.left -= weight;
          reserve.lastUsed = now;
          return ALLOWED;
        }
        const need = weight - left;
        const holder: Reserve = { window, left, lastUsed: now };
        const pending = reserveMore(name, key, limit, windowMs, window, Math.max(need, block), need);
        holder.pending = pending;
        reserves.set(name, holder);
        try {
          return await pending;
        } finally {
          const after = reserves.get(name);
          // Refused or failed: what was left stays, without the reservation.
          if (after === holder) {
            delete holder.pending;
            if (holder.left <= 0) reserves.delete(name);
          }
        }
      }
    },
    async reset(key, windowMs) {
      reserves.delete(`${windowMs}:${key}`);
      await store.reset(key, windowMs);
    },
    async release() {
      await Promise.all(
        [...reserves].map(([name, reserve]) => {
          const colon = name.indexOf(':');
          return giveBack(name.slice(colon + 1), Number(name.slice(0, colon)), reserve);
        }),
      );
    },
    close() {
      clearInterval(sweep);
    },
  };
}
