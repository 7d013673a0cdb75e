/**
 * Idempotency records: one per identity and Idempotency-Key, claimed atomically before a mutation
 * runs, held by a lease its request renews while it runs, completed with its sealed answer once it
 * ran, released when it never reached the upstream. A claim whose lease ran out without an answer
 * (its replica died, or the answer could not be stored) is never claimed again: it is `orphaned`,
 * and the next request of that key settles it as "outcome unknown" (use-idempotency.ts).
 *
 * Kept in the session store, which never evicts (an evicted record would let a filing run twice):
 * Redis (redis-idempotency-store.ts) or, without Redis, this process's memory (below). Names are
 * keyed HMACs (derived-keys.ts): the store sees neither the key nor who sent it. Each identity's
 * keys and the bytes of their answers are bounded, so one caller cannot fill the store.
 */

/** Where a record lives: the identity's and the key's keyed names. */
export interface RecordName {
  readonly identity: string;
  readonly key: string;
}

export type ClaimOutcome =
  /** This request runs the mutation. */
  | { readonly status: 'claimed' }
  /** Another request with this key is still running (its lease holds). */
  | { readonly status: 'pending'; readonly fingerprint: string }
  /** The first request ran: its sealed answer. */
  | { readonly status: 'done'; readonly fingerprint: string; readonly answer: string }
  /** A claim whose holder is gone without an answer: it may have run, so it never runs again. */
  | { readonly status: 'orphaned'; readonly fingerprint: string }
  /** The identity holds as many keys or bytes as it may: no new key until the oldest expires. */
  | { readonly status: 'full'; readonly retryAfterMs: number };

export interface ClaimOptions {
  /** How long the claim holds without a renewal (a dead replica's claim is orphaned then). */
  readonly leaseMs: number;
  /** How long the record is kept (IDEMPOTENCY_TTL). */
  readonly ttlMs: number;
  /** The most keys one identity may hold within `ttlMs`. */
  readonly maxPerIdentity: number;
  /** IDEMPOTENCY_MAX_BYTES: while the identity's answers (as stored) reach it, no new key. */
  readonly maxBytes: number;
  readonly now: number;
}

/** What `complete` left in the record. */
export type CompleteOutcome =
  /** The given answer is kept. */
  | { readonly status: 'stored' }
  /** An answer was already kept (this one is not): replay that one. */
  | { readonly status: 'kept'; readonly answer: string }
  /** `orphanedOnly`, and the claim's lease still holds: its request still runs. */
  | { readonly status: 'pending' }
  /** No record of this fingerprint (expired, or released). */
  | { readonly status: 'gone' };

export interface CompleteOptions {
  readonly ttlMs: number;
  readonly now: number;
  /** Store only when the lease has run out (settling another request's orphaned claim). */
  readonly orphanedOnly?: boolean;
}

/** A record as it is, read without changing it (a lookup under a previous CREDENTIAL_KEY's names). */
export interface FoundRecord {
  readonly fingerprint: string;
  readonly answer: string | undefined;
  readonly leaseUntil: number;
}

export interface IdempotencyStore {
  claim(name: RecordName, fingerprint: string, options: ClaimOptions): Promise<ClaimOutcome>;
  /** Extends a running claim's lease; false when the claim is no longer this request's to hold. */
  renew(name: RecordName, fingerprint: string, leaseUntil: number): Promise<boolean>;
  /** Keeps the answer, unless the record already holds one; counts its bytes against the identity. */
  complete(name: RecordName, fingerprint: string, answer: string, options: CompleteOptions): Promise<CompleteOutcome>;
  /** Forgets a claim whose request never reached the upstream (nothing is kept for it). */
  release(name: RecordName, fingerprint: string): Promise<void>;
  find(name: RecordName): Promise<FoundRecord | undefined>;
}

interface MemoryRecord {
  readonly fingerprint: string;
  answer: string | undefined;
  leaseUntil: number;
  expiresAt: number;
}

interface MemoryIdentity {
  /** Each key's expiry (when it stops counting) and its answer's size. */
  readonly keys: Map<string, { until: number; bytes: number }>;
  bytes: number;
}

/** One process's records (no Redis): the same semantics, bounded per identity the same way. */
export function createMemoryIdempotencyStore(clock: () => number = Date.now): IdempotencyStore {
  const records = new Map<string, MemoryRecord>();
  const identities = new Map<string, MemoryIdentity>();
  const id = (name: RecordName) => `${name.identity}\0${name.key}`;
  const live = (name: RecordName): MemoryRecord | undefined => {
    const record = records.get(id(name));
    if (record && record.expiresAt <= clock()) records.delete(id(name));
    return record && record.expiresAt > clock() ? record : undefined;
  };
  const identityOf = (name: RecordName): MemoryIdentity => {
    let found = identities.get(name.identity);
    if (!found) identities.set(name.identity, (found = { keys: new Map(), bytes: 0 }));
    return found;
  };
  const prune = (identity: MemoryIdentity, identityName: string, now: number) => {
    for (const [key, { until, bytes }] of identity.keys) {
      if (until > now) continue;
      identity.keys.delete(key);
      identity.bytes -= bytes;
      records.delete(id({ identity: identityName, key }));
    }
  };
  const claimIn = (name: RecordName, fingerprint: string, options: ClaimOptions): ClaimOutcome => {
    const found = live(name);
    if (found) {
      if (found.answer !== undefined) return { status: 'done', fingerprint: found.fingerprint, answer: found.answer };
      return found.leaseUntil > options.now ? { status: 'pending', fingerprint: found.fingerprint } : { status: 'orphaned', fingerprint: found.fingerprint };
    }
    const identity = identityOf(name);
    prune(identity, name.identity, options.now);
    if (identity.keys.size >= options.maxPerIdentity || identity.bytes >= options.maxBytes) {
      const oldest = Math.min(...[...identity.keys.values()].map((entry) => entry.until));
      return { status: 'full', retryAfterMs: Number.isFinite(oldest) ? oldest - options.now : options.ttlMs };
    }
    identity.keys.set(name.key, { until: options.now + options.ttlMs, bytes: 0 });
    records.set(id(name), { fingerprint, answer: undefined, leaseUntil: options.now + options.leaseMs, expiresAt: options.now + options.ttlMs });
    return { status: 'claimed' };
  };
  const completeIn = (name: RecordName, fingerprint: string, answer: string, options: CompleteOptions): CompleteOutcome => {
    const found = live(name);
    if (found?.fingerprint !== fingerprint) return { status: 'gone' };
    if (found.answer !== undefined) return { status: 'kept', answer: found.answer };
    if (options.orphanedOnly && found.leaseUntil > options.now) return { status: 'pending' };
    Object.assign(found, { answer, expiresAt: options.now + options.ttlMs });
    // The key counts against the bound (keys and bytes) as long as its record lives, and goes with it.
    const identity = identityOf(name);
    const before = identity.keys.get(name.key)?.bytes ?? 0;
    identity.keys.set(name.key, { until: found.expiresAt, bytes: answer.length });
    identity.bytes += answer.length - before;
    return { status: 'stored' };
  };
  return {
    claim: (name, fingerprint, options) => Promise.resolve(claimIn(name, fingerprint, options)),
    renew(name, fingerprint, leaseUntil) {
      const found = live(name);
      if (found?.fingerprint !== fingerprint || found.answer !== undefined) return Promise.resolve(false);
      found.leaseUntil = leaseUntil;
      return Promise.resolve(true);
    },
    complete: (name, fingerprint, answer, options) => Promise.resolve(completeIn(name, fingerprint, answer, options)),
    release(name, fingerprint) {
      const found = live(name);
      if (found?.fingerprint === fingerprint && found.answer === undefined) {
        records.delete(id(name));
        identities.get(name.identity)?.keys.delete(name.key);
      }
      return Promise.resolve();
    },
    find(name) {
      const found = live(name);
      return Promise.resolve(found ? { fingerprint: found.fingerprint, answer: found.answer, leaseUntil: found.leaseUntil } : undefined);
    },
  };
}
