/**
 * Which identities' groups each upstream namespace holds, so that a purge of everything cached for
 * an environment finds them through an index instead of a keyspace scan (which a Redis Cluster
 * would have to run on every master, and which blocks each while it runs).
 *
 * A wrapper of the store: every write of members also notes its group (by its stored, keyed name)
 * in the namespace's index (`sgw:cache:{<namespace>}:groups`, a sorted set by the time the group
 * may live until), at most once per half TTL per group and process, so that the index costs one
 * command per identity now and then, not one per write.
 */
import { LRUCache } from 'lru-cache';
import { cacheKeys, UNKNOWN_GENERATION, type CacheStore } from './cache-store';

/** The namespace in a group's hash tag: `{<namespace>:<identity>}`. */
const NAMESPACE = /^[^{]*\{([^}:]+):[^}]*\}/;

export interface GroupIndexOptions {
  readonly clock: () => number;
  /** Groups this process remembers having noted (beyond it, one is simply noted again). */
  readonly maxRemembered?: number;
}

export function indexGroups(store: CacheStore, { clock, maxRemembered = 10_000 }: GroupIndexOptions): CacheStore {
  /** Group → when it is to be noted again. */
  const noted = new LRUCache<string, number>({ max: maxRemembered });
  return {
    ...store,
    async putMembers(group, entries, ttlMs, generation, maxMembers) {
      await store.putMembers(group, entries, ttlMs, generation, maxMembers);
      const namespace = NAMESPACE.exec(group)?.[1];
      if (namespace === undefined || entries.length === 0 || generation === UNKNOWN_GENERATION) return;
      const now = clock();
      if ((noted.get(group) ?? 0) > now) return;
      noted.set(group, now + ttlMs / 2);
      // Its members live a TTL from their write, and the group's index (for the misses' reasons) twice that.
      await store.indexGroup(cacheKeys.groups(namespace), group, now + 2 * ttlMs);
    },
  };
}
