import { indexKeyOf, type IndexedSession, type IndexedSessionStore } from './session-index';
import type { PeekResult, SessionRecord, TouchResult } from './session-store';

interface Entry {
  record: SessionRecord;
  expiresAt: number;
  /** The last create or touch: the index's "last used". */
  lastSeenAt: number;
}

/**
 * The single-process store used when no REDIS_URL is set. Sessions die with the process.
 * Expired entries are swept lazily on access and periodically, so memory stays bounded. Each
 * user's index is the set of their session keys; an entry's times are the session's own.
 */
export function createMemorySessionStore(options: { readonly clock?: () => number; readonly sweepEveryMs?: number } = {}): IndexedSessionStore & { close(): void } {
  const clock = options.clock ?? Date.now;
  const entries = new Map<string, Entry>();
  const indexes = new Map<string, Set<string>>();

  const unindex = (key: string) => {
    const indexKey = indexKeyOf(key);
    const index = indexKey === undefined ? undefined : indexes.get(indexKey);
    index?.delete(key);
    if (indexKey !== undefined && index?.size === 0) indexes.delete(indexKey);
  };
  const remove = (key: string) => {
    entries.delete(key);
    unindex(key);
  };
  const sweep = setInterval(() => {
    const now = clock();
    for (const [key, entry] of entries) if (entry.expiresAt <= now) remove(key);
  }, options.sweepEveryMs ?? 60_000);
  sweep.unref();

  const live = (key: string): Entry | undefined => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= clock()) {
      remove(key);
      return undefined;
    }
    return entry;
  };

  /** An index's live sessions; the keys of ended ones are dropped from it. */
  const indexed = (indexKey: string, now: number): IndexedSession[] => {
    const found: IndexedSession[] = [];
    for (const key of indexes.get(indexKey) ?? []) {
      const entry = live(key);
      if (!entry) unindex(key);
      else if (entry.record.absoluteExpiresAt > now) found.push({ key, record: entry.record, lastSeenAt: entry.lastSeenAt });
    }
    return found;
  };

  return {
    kind: 'memory',
    create(key, record, idleMs, maxPerUser = Number.MAX_SAFE_INTEGER) {
      const now = record.createdAt;
      entries.set(key, { record, expiresAt: clock() + Math.min(idleMs, record.absoluteExpiresAt - now), lastSeenAt: now });
      const indexKey = indexKeyOf(key);
      if (indexKey === undefined) return Promise.resolve([]);
      indexes.set(indexKey, (indexes.get(indexKey) ?? new Set()).add(key));
      const others = indexed(indexKey, now).filter((session) => session.key !== key);
      const over = others.length + 1 - maxPerUser;
      const beyond = over > 0 ? others.sort((a, b) => a.lastSeenAt - b.lastSeenAt).slice(0, over).map((session) => session.key) : [];
      return Promise.resolve(beyond);
    },
    touch(key, idleMs, now): Promise<TouchResult> {
      const entry = live(key);
      if (!entry) return Promise.resolve({ status: 'missing' });
      if (entry.record.absoluteExpiresAt <= now) {
        remove(key);
        return Promise.resolve({ status: 'expired' });
      }
      entry.expiresAt = clock() + Math.min(idleMs, entry.record.absoluteExpiresAt - now);
      entry.lastSeenAt = now;
      return Promise.resolve({ status: 'active', record: entry.record });
    },
    peek(key, now): Promise<PeekResult> {
      const entry = live(key);
      if (!entry) return Promise.resolve({ status: 'missing' });
      if (entry.record.absoluteExpiresAt <= now) {
        remove(key);
        return Promise.resolve({ status: 'expired' });
      }
      return Promise.resolve({ status: 'active', record: entry.record, idleExpiresAt: entry.expiresAt });
    },
    replaceCredential(key, expected, next) {
      const entry = live(key);
      if (!entry || entry.record.credential !== expected) return Promise.resolve(false);
      entry.record = { ...entry.record, credential: next };
      return Promise.resolve(true);
    },
    delete(key) {
      remove(key);
      return Promise.resolve();
    },
    deleteIfCredential(key, expected) {
      const entry = live(key);
      if (!entry || entry.record.credential !== expected) return Promise.resolve(false);
      remove(key);
      return Promise.resolve(true);
    },
    indexed: (indexKey, now) => Promise.resolve(indexed(indexKey, now)),
    take(key) {
      const entry = live(key);
      remove(key);
      return Promise.resolve(entry?.record);
    },
    ping: () => Promise.resolve(),
    close: () => clearInterval(sweep),
  };
}
