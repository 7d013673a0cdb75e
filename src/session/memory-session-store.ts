import type { PeekResult, SessionRecord, SessionStore, TouchResult } from './session-store';

interface Entry {
  record: SessionRecord;
  expiresAt: number;
}

/**
 * The single-process store used when no REDIS_URL is set. Sessions die with the process.
 * Expired entries are swept lazily on access and periodically, so memory stays bounded.
 */
export function createMemorySessionStore(options: { readonly clock?: () => number; readonly sweepEveryMs?: number } = {}): SessionStore & { close(): void } {
  const clock = options.clock ?? Date.now;
  const entries = new Map<string, Entry>();
  const sweep = setInterval(() => {
    const now = clock();
    for (const [key, entry] of entries) if (entry.expiresAt <= now) entries.delete(key);
  }, options.sweepEveryMs ?? 60_000);
  sweep.unref();

  const live = (key: string): Entry | undefined => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= clock()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };

  return {
    kind: 'memory',
    create(key, record, idleMs) {
      entries.set(key, { record, expiresAt: clock() + Math.min(idleMs, record.absoluteExpiresAt - clock()) });
      return Promise.resolve();
    },
    touch(key, idleMs, now): Promise<TouchResult> {
      const entry = live(key);
      if (!entry) return Promise.resolve({ status: 'missing' });
      if (entry.record.absoluteExpiresAt <= now) {
        entries.delete(key);
        return Promise.resolve({ status: 'expired' });
      }
      entry.expiresAt = clock() + Math.min(idleMs, entry.record.absoluteExpiresAt - now);
      return Promise.resolve({ status: 'active', record: entry.record });
    },
    peek(key, now): Promise<PeekResult> {
      const entry = live(key);
      if (!entry) return Promise.resolve({ status: 'missing' });
      if (entry.record.absoluteExpiresAt <= now) {
        entries.delete(key);
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
      entries.delete(key);
      return Promise.resolve();
    },
    deleteIfCredential(key, expected) {
      const entry = live(key);
      if (!entry || entry.record.credential !== expected) return Promise.resolve(false);
      entries.delete(key);
      return Promise.resolve(true);
    },
    ping: () => Promise.resolve(),
    close: () => clearInterval(sweep),
  };
}
