/**
 * The in-memory cache store, for a gateway without Redis: bounded by size (least recently used
 * entries go first), with a TTL per entry. Locks and waiters are local to the process, which is
 * all a single process needs.
 */
import { LRUCache } from 'lru-cache';
import { createWaiters } from './waiters';
import { UNKNOWN_GENERATION, type AbsenceReason, type CacheStore, type DropReason, type GroupEntry, type GroupSelection } from './cache-store';

export interface MemoryCacheStoreOptions {
  /** Upper bound of the stored values, in bytes (UTF-16: two per character). */
  readonly maxBytes?: number;
}

interface Group {
  /** Member id → its aliases, oldest write first (a rewrite moves a member to the end). */
  readonly ids: Map<string, readonly string[]>;
  readonly aliases: Map<string, string>;
}

/** A group's index is pruned of expired members when it grows past this. */
const PRUNE_AT = 1_000;
/** Members remembered as dropped (for the misses' reasons), and for how long at most. */
const DROPPED_MAX = 100_000;
const DROPPED_MS = 24 * 60 * 60 * 1000;

export function createMemoryCacheStore({ maxBytes = 256 * 1024 * 1024 }: MemoryCacheStoreOptions = {}): CacheStore {
  const entries = new LRUCache<string, string>({ maxSize: maxBytes, sizeCalculation: (value, key) => (value.length + key.length) * 2 || 1 });
  const groups = new Map<string, Group>();
  const generations = new Map<string, number>();
  const locks = new Map<string, { token: string; expiresAt: number }>();
  /** `<group>\0<id>` → why it was dropped, until it is written again. */
  const dropped = new LRUCache<string, DropReason>({ max: DROPPED_MAX, ttl: DROPPED_MS });
  const listeners = new Set<(notice: string) => void>();
  /** Group indexes: index → group → until (ms). */
  const indexes = new Map<string, Map<string, number>>();
  const waiters = createWaiters();
  const memberKey = (group: string, id: string) => `${group}:${id}`;
  const generationOf = (group: string) => String(generations.get(group) ?? 0);

  const forget = (group: string, state: Group, id: string) => {
    entries.delete(memberKey(group, id));
    for (const alias of state.ids.get(id) ?? []) if (state.aliases.get(alias) === id) state.aliases.delete(alias);
    state.ids.delete(id);
  };

  const putMembers = (group: string, list: readonly GroupEntry[], ttlMs: number, generation: string, maxMembers: number) => {
    if (generation === UNKNOWN_GENERATION || generation !== generationOf(group)) return;
    let state = groups.get(group);
    if (!state) groups.set(group, (state = { ids: new Map(), aliases: new Map() }));
    if (state.ids.size > PRUNE_AT) {
      for (const id of state.ids.keys()) if (!entries.has(memberKey(group, id))) forget(group, state, id);
    }
    for (const entry of list) {
      entries.set(memberKey(group, entry.id), entry.value, { ttl: ttlMs });
      dropped.delete(`${group}\0${entry.id}`);
      state.ids.delete(entry.id);
      state.ids.set(entry.id, entry.aliases ?? []);
      for (const alias of entry.aliases ?? []) state.aliases.set(alias, entry.id);
    }
    for (const id of state.ids.keys()) {
      if (state.ids.size <= maxMembers) break;
      forget(group, state, id);
    }
  };

  /** The ids a selection names in a group (aliases resolved). */
  const selected = (state: Group, selection: GroupSelection): Set<string> => {
    if (selection === 'all') return new Set(state.ids.keys());
    const ids = new Set(selection.ids);
    for (const alias of selection.aliases) {
      const id = state.aliases.get(alias);
      if (id !== undefined) ids.add(id);
    }
    return ids;
  };

  const dropMembers = (group: string, selection: GroupSelection, reason: DropReason): number => {
    generations.set(group, (generations.get(group) ?? 0) + 1);
    const state = groups.get(group);
    if (!state) return 0;
    let count = 0;
    for (const id of selected(state, selection)) {
      if (entries.has(memberKey(group, id))) {
        count++;
        dropped.set(`${group}\0${id}`, reason);
      }
      forget(group, state, id);
    }
    if (selection === 'all') groups.delete(group);
    return count;
  };

  const countMembers = (group: string, selection: GroupSelection): number => {
    const state = groups.get(group);
    return state ? [...selected(state, selection)].filter((id) => entries.has(memberKey(group, id))).length : 0;
  };

  // A member still in its group's index but not among the entries has expired (or was evicted).
  const absence = (group: string, id: string): AbsenceReason => dropped.get(`${group}\0${id}`) ?? (groups.get(group)?.ids.has(id) ? 'expired' : 'cold');

  return {
    kind: 'memory',
    get: (key) => Promise.resolve(entries.get(key) ?? null),
    set(key, value, ttlMs) {
      entries.set(key, value, { ttl: ttlMs });
      return Promise.resolve();
    },
    getMembers: (group, ids) => Promise.resolve({ values: ids.map((id) => entries.get(memberKey(group, id)) ?? null), generation: generationOf(group) }),
    putMembers: (group, list, ttlMs, generation, maxMembers) => Promise.resolve(putMembers(group, list, ttlMs, generation, maxMembers)),
    dropMembers: (group, selection, reason = 'invalidated') => Promise.resolve(dropMembers(group, selection, reason)),
    countMembers: (group, selection) => Promise.resolve(countMembers(group, selection)),
    absences: (group, ids) => Promise.resolve(ids.map((id) => absence(group, id))),
    indexGroup(index, group, untilMs) {
      let noted = indexes.get(index);
      if (!noted) indexes.set(index, (noted = new Map<string, number>()));
      noted.set(group, untilMs);
      for (const [name, until] of noted) if (until <= Date.now()) noted.delete(name);
      return Promise.resolve();
    },
    indexedGroups: (index, nowMs) => Promise.resolve([...(indexes.get(index) ?? [])].filter(([, until]) => until > nowMs).map(([group]) => group)),
    deleteKeys: (keys) => Promise.resolve(keys.filter((key) => entries.delete(key)).length),
    countKeys: (keys) => Promise.resolve(keys.filter((key) => entries.has(key)).length),
    announce(notice) {
      for (const listener of listeners) listener(notice);
      return Promise.resolve();
    },
    // One process: no notice can be lost.
    onNotice(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    acquireLock(key, ttlMs, token) {
      const held = locks.get(key);
      if (held && held.expiresAt > Date.now()) return Promise.resolve(null);
      locks.set(key, { token, expiresAt: Date.now() + ttlMs });
      return Promise.resolve(token);
    },
    releaseLock(key, token) {
      if (locks.get(key)?.token === token) {
        locks.delete(key);
        waiters.wake(key);
      }
      return Promise.resolve();
    },
    async waitForRelease(key, timeoutMs) {
      const held = locks.get(key);
      if (!held) return;
      const deadline = Date.now() + timeoutMs;
      const left = () => Math.min(deadline, held.expiresAt) - Date.now();
      // Until this lock is released or expires. A timer can fire a few ms before Date.now() reaches
      // its end (the event loop's clock lags on a busy loop), and a waiter that went on then found
      // the lock still held: the rest is waited for.
      while (locks.get(key) === held && left() > 0) await waiters.wait(key, left());
    },
    ping: () => Promise.resolve(),
    close() {
      entries.clear();
      groups.clear();
      generations.clear();
      dropped.clear();
      listeners.clear();
      indexes.clear();
      waiters.wakeAll();
      return Promise.resolve();
    },
  };
}
