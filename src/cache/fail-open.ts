/**
 * Caches fail open: when the cache store cannot be reached, a lookup is a miss, a write is
 * skipped and a lock is granted locally, so the gateway answers uncached instead of failing.
 * The outage is logged once (StoreHealth) and every failed command is counted.
 *
 * An invalidation that cannot be delivered is kept and replayed once the store answers again,
 * before this process reads or writes that group, so an entry a mutation made stale during the
 * outage is not served from here afterwards.
 */
import type { GatewayMetrics } from '../observability/metrics';
import type { StoreHealth } from '../observability/store-health';
import { UNKNOWN_GENERATION, type CacheStore, type GroupSelection } from './cache-store';

export interface FailOpenOptions {
  readonly health: StoreHealth;
  readonly metrics: GatewayMetrics;
  /** Undelivered invalidations kept at most (the oldest are forgotten beyond it). */
  readonly maxPending?: number;
}

function merge(a: GroupSelection | undefined, b: GroupSelection): GroupSelection {
  if (a === undefined) return b;
  if (a === 'all' || b === 'all') return 'all';
  return { ids: [...new Set([...a.ids, ...b.ids])], aliases: [...new Set([...a.aliases, ...b.aliases])] };
}

export function failOpen(store: CacheStore, { health, metrics, maxPending = 10_000 }: FailOpenOptions): CacheStore {
  const pending = new Map<string, GroupSelection>();
  let replaying: Promise<void> | undefined;

  const failed = (operation: string, error: unknown) => {
    health.failed(error);
    metrics.cacheStoreError(operation);
  };

  /** Delivers the kept invalidations of one group, or of all; false if the store still fails. */
  const replay = async (group?: string): Promise<boolean> => {
    const groups = group === undefined ? [...pending.keys()] : pending.has(group) ? [group] : [];
    for (const name of groups) {
      const selection = pending.get(name);
      if (selection === undefined) continue;
      try {
        await store.dropMembers(name, selection);
      } catch (error) {
        failed('replay', error);
        return false;
      }
      if (pending.get(name) === selection) pending.delete(name);
    }
    return true;
  };

  const succeeded = () => {
    health.ok();
    if (pending.size > 0 && !replaying) replaying = replay().then(() => { replaying = undefined; });
  };

  async function attempt<T>(operation: string, run: () => Promise<T>, fallback: T): Promise<T> {
    try {
      const value = await run();
      succeeded();
      return value;
    } catch (error) {
      failed(operation, error);
      return fallback;
    }
  }

  return {
    kind: store.kind,
    get: (key) => attempt('get', () => store.get(key), null),
    set: (key, value, ttlMs) => attempt('set', () => store.set(key, value, ttlMs), undefined),
    async getMembers(group, ids) {
      // Unknown generation: whatever this request fetches is not stored.
      const misses = { values: ids.map(() => null), generation: UNKNOWN_GENERATION };
      if (pending.has(group) && !(await replay(group))) return misses;
      return attempt('getMembers', () => store.getMembers(group, ids), misses);
    },
    async putMembers(group, entries, ttlMs, generation, maxMembers) {
      // Nothing to write (the lookup before it failed): no command, and no sign of health.
      if (generation === UNKNOWN_GENERATION || entries.length === 0) return;
      if (pending.has(group) && !(await replay(group))) return;
      await attempt('putMembers', () => store.putMembers(group, entries, ttlMs, generation, maxMembers), undefined);
    },
    async dropMembers(group, selection, reason) {
      try {
        const dropped = await store.dropMembers(group, selection, reason);
        succeeded();
        return dropped;
      } catch (error) {
        failed('dropMembers', error);
        const merged = merge(pending.get(group), selection);
        pending.delete(group);
        pending.set(group, merged);
        if (pending.size > maxPending) {
          const oldest = pending.keys().next().value;
          if (oldest !== undefined) pending.delete(oldest);
        }
        return 0;
      }
    },
    countMembers: (group, selection) => attempt('countMembers', () => store.countMembers(group, selection), 0),
    // Unknown reasons read as `cold`; a lookup that failed is counted `store_down` by its caller.
    absences: (group, ids) => attempt('absences', () => store.absences(group, ids), ids.map(() => 'cold' as const)),
    indexGroup: (index, group, untilMs) => attempt('indexGroup', () => store.indexGroup(index, group, untilMs), undefined),
    indexedGroups: (index, nowMs) => attempt('indexedGroups', () => store.indexedGroups(index, nowMs), []),
    deleteKeys: (keys) => attempt('deleteKeys', () => store.deleteKeys(keys), 0),
    countKeys: (keys) => attempt('countKeys', () => store.countKeys(keys), 0),
    announce: (notice) => attempt('announce', () => store.announce(notice), undefined),
    onNotice: (listener, lost) => store.onNotice(listener, lost),
    // Without the store, no lock can be shared: each replica goes ahead (the upstream sees one
    // call per replica instead of one in all). The token is kept: if the command reached Redis
    // after all, the release frees the lock instead of leaving it to expire.
    acquireLock: (key, ttlMs, token) => attempt('acquireLock', () => store.acquireLock(key, ttlMs, token), token),
    releaseLock: (key, token) => attempt('releaseLock', () => store.releaseLock(key, token), undefined),
    waitForRelease: (key, timeoutMs) => attempt('waitForRelease', () => store.waitForRelease(key, timeoutMs), undefined),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}
