/**
 * Idempotency records: one per identity and Idempotency-Key, claimed atomically before a mutation
 * runs, completed with its sealed answer once it ran, released when it never reached the upstream.
 * Kept in the session store, which never evicts (an evicted record would let a filing run twice):
 * Redis (redis-store.ts) or, without Redis, this process's memory (below). Names are keyed HMACs
 * (derived-keys.ts): the store sees neither the key nor who sent it.
 */

/** Where a record lives: the identity's and the key's keyed names. */
export interface RecordName {
  readonly identity: string;
  readonly key: string;
}

export type ClaimOutcome =
  /** This request runs the mutation. */
  | { readonly status: 'claimed' }
  /** Another request with this key is still running. */
  | { readonly status: 'pending'; readonly fingerprint: string }
  /** The first request ran: its sealed answer. */
  | { readonly status: 'done'; readonly fingerprint: string; readonly answer: string }
  /** The identity holds as many keys as it may: no new one until some expire. */
  | { readonly status: 'full' };

export interface ClaimOptions {
  /** How long a claim holds while its request runs (a replica that died mid-request frees it then). */
  readonly pendingMs: number;
  /** How long a completed record is kept (IDEMPOTENCY_TTL). */
  readonly ttlMs: number;
  /** The most keys one identity may hold within `ttlMs`. */
  readonly maxPerIdentity: number;
  readonly now: number;
}

export interface IdempotencyStore {
  claim(name: RecordName, fingerprint: string, options: ClaimOptions): Promise<ClaimOutcome>;
  /** Stores the answer, when the claim is still this fingerprint's. */
  complete(name: RecordName, fingerprint: string, answer: string, ttlMs: number): Promise<void>;
  /** Forgets a claim whose request never reached the upstream (nothing is kept for it). */
  release(name: RecordName, fingerprint: string): Promise<void>;
}

interface MemoryRecord {
  fingerprint: string;
  answer: string | undefined;
  expiresAt: number;
}

/** One process's records (no Redis): the same semantics, bounded per identity the same way. */
export function createMemoryIdempotencyStore(clock: () => number = Date.now): IdempotencyStore {
  const records = new Map<string, MemoryRecord>();
  /** Per identity: its keys and when each stops counting against the bound. */
  const identities = new Map<string, Map<string, number>>();
  const id = (name: RecordName) => `${name.identity}\0${name.key}`;
  const live = (name: RecordName): MemoryRecord | undefined => {
    const record = records.get(id(name));
    if (record && record.expiresAt <= clock()) records.delete(id(name));
    return record && record.expiresAt > clock() ? record : undefined;
  };
  const claimIn = (name: RecordName, fingerprint: string, options: ClaimOptions): ClaimOutcome => {
    const found = live(name);
    if (found) return found.answer === undefined ? { status: 'pending', fingerprint: found.fingerprint } : { status: 'done', fingerprint: found.fingerprint, answer: found.answer };
    let keys = identities.get(name.identity);
    if (!keys) identities.set(name.identity, (keys = new Map<string, number>()));
    for (const [key, until] of keys) {
      if (until > options.now) continue;
      keys.delete(key);
      records.delete(id({ identity: name.identity, key }));
    }
    if (keys.size >= options.maxPerIdentity) return { status: 'full' };
    keys.set(name.key, options.now + options.ttlMs);
    records.set(id(name), { fingerprint, answer: undefined, expiresAt: options.now + options.pendingMs });
    return { status: 'claimed' };
  };
  return {
    claim(name, fingerprint, options) {
      return Promise.resolve(claimIn(name, fingerprint, options));
    },
    complete(name, fingerprint, answer, ttlMs) {
      const found = live(name);
      if (found?.fingerprint === fingerprint) {
        Object.assign(found, { answer, expiresAt: clock() + ttlMs });
        // The key counts against the bound as long as its record lives, and goes with it.
        identities.get(name.identity)?.set(name.key, found.expiresAt);
      }
      return Promise.resolve();
    },
    release(name, fingerprint) {
      const found = live(name);
      if (found?.fingerprint === fingerprint && found.answer === undefined) {
        records.delete(id(name));
        identities.get(name.identity)?.delete(name.key);
      }
      return Promise.resolve();
    },
  };
}
