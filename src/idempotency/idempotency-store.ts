/**
 * Idempotency records: one per identity and Idempotency-Key, claimed atomically before a mutation
 * runs, held by a lease its request renews while it runs, completed with its sealed answer once it
 * ran, released when it never reached the upstream. A claim whose lease ran out without an answer
 * (its replica died, or the answer could not be stored) is never claimed again: it is `orphaned`,
 * and the next request of that key settles it as "outcome unknown" (use-idempotency.ts). Each claim
 * carries a random token: only its own request renews, completes or releases it, so a claim that
 * reached the store after its request gave up (a stalled store) can be released by that token.
 *
 * Kept in the session store, which never evicts (an evicted record would let a filing run twice):
 * Redis (redis-idempotency-store.ts) or, without Redis, this process's memory (below). Names are
 * keyed HMACs (derived-keys.ts): the store sees neither the key nor who sent it. Each identity's
 * keys, running claims and the bytes of their answers are bounded, so one caller cannot fill the
 * store, concurrently or not.
 */

/** Where a record lives: the identity's and the key's keyed names. */
export interface RecordName {
  readonly identity: string;
  readonly key: string;
  /** Under the key prefix records had before `sgw:idem:` (read, and settled, for one IDEMPOTENCY_TTL after the move). */
  readonly legacy?: boolean;
}

/** A record that is not the caller's to run, as the store found it. */
export type FoundOutcome =
  /** Another request with this key is still running (its lease holds). */
  | { readonly status: 'pending'; readonly fingerprint: string; readonly legacy?: boolean }
  /** The first request ran: its sealed answer. */
  | { readonly status: 'done'; readonly fingerprint: string; readonly answer: string; readonly legacy?: boolean }
  /** A claim whose holder is gone without an answer: it may have run, so it never runs again. */
  | { readonly status: 'orphaned'; readonly fingerprint: string; readonly legacy?: boolean };

export type ClaimOutcome =
  /** This request runs the mutation. */
  | { readonly status: 'claimed' }
  | FoundOutcome
  /** The identity holds as many keys, running claims or bytes as it may: no new key for `retryAfterMs`. */
  | { readonly status: 'full'; readonly retryAfterMs: number };

export interface ClaimOptions {
  /** This claim's own token (random): renew, complete and release name it. */
  readonly token: string;
  /** How long the claim holds without a renewal (a dead replica's claim is orphaned then). */
  readonly leaseMs: number;
  /** How long the record is kept (IDEMPOTENCY_TTL). */
  readonly ttlMs: number;
  /** The most keys one identity may hold within `ttlMs`. */
  readonly maxPerIdentity: number;
  /** The most claims of one identity running at once (their answers' sizes are not known yet). */
  readonly maxRunning: number;
  /** IDEMPOTENCY_MAX_BYTES: kept answers (as stored) plus `reserveBytes` per running claim must stay below it. */
  readonly maxBytes: number;
  /** What each running claim counts for against `maxBytes` until its answer's size is known. */
  readonly reserveBytes: number;
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
  /** No such claim (expired, released, or another request's). */
  | { readonly status: 'gone' };

export type CompleteOptions = { readonly ttlMs: number; readonly now: number } & (
  /** The claim's own request keeps its answer. */
  | { readonly token: string }
  /** Another request settles a claim whose lease ran out (its fingerprint names it). */
  | { readonly orphanedOnly: true }
);

/** A record as it is, read without changing it (a lookup under another name of the same record). */
export interface FoundRecord {
  readonly fingerprint: string;
  readonly answer: string | undefined;
  readonly leaseUntil: number;
}

export interface IdempotencyStore {
  claim(name: RecordName, fingerprint: string, options: ClaimOptions): Promise<ClaimOutcome>;
  /** Extends a running claim's lease (and its record's life, should IDEMPOTENCY_TTL be shorter); false when it is no longer this claim. */
  renew(name: RecordName, token: string, leaseUntil: number, now: number): Promise<boolean>;
  /** Keeps the answer, unless the record already holds one; counts its bytes against the identity. */
  complete(name: RecordName, fingerprint: string, answer: string, options: CompleteOptions): Promise<CompleteOutcome>;
  /** Forgets a claim that never reached the upstream (nothing is kept for it). */
  release(name: RecordName, token: string): Promise<void>;
  find(name: RecordName): Promise<FoundRecord | undefined>;
}

/** A found record's outcome for a caller that did not claim it. */
export function foundOutcome(record: FoundRecord, now: number, legacy = false): FoundOutcome {
  const { fingerprint, answer } = record;
  const where = legacy ? { legacy } : {};
  if (answer !== undefined) return { status: 'done', fingerprint, answer, ...where };
  return record.leaseUntil > now ? { status: 'pending', fingerprint, ...where } : { status: 'orphaned', fingerprint, ...where };
}

interface MemoryRecord {
  readonly fingerprint: string;
  readonly token: string;
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
  // A process's memory has no records from before the prefix moved: a legacy name is never found.
  const id = (name: RecordName) => `${name.identity}\0${name.key}`;
  const live = (name: RecordName): MemoryRecord | undefined => {
    if (name.legacy) return undefined;
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
  const running = (identityName: string, identity: MemoryIdentity, now: number) => {
    let count = 0;
    for (const key of identity.keys.keys()) {
      const record = records.get(id({ identity: identityName, key }));
      if (record?.answer === undefined && record !== undefined && record.leaseUntil > now) count++;
    }
    return count;
  };
  const claimIn = (name: RecordName, fingerprint: string, options: ClaimOptions): ClaimOutcome => {
    const found = live(name);
    if (found) return foundOutcome(found, options.now);
    const identity = identityOf(name);
    prune(identity, name.identity, options.now);
    const runningNow = running(name.identity, identity, options.now);
    if (runningNow >= options.maxRunning) return { status: 'full', retryAfterMs: 1_000 };
    if (identity.keys.size >= options.maxPerIdentity || identity.bytes + runningNow * options.reserveBytes >= options.maxBytes) {
      const oldest = Math.min(...[...identity.keys.values()].map((entry) => entry.until));
      return { status: 'full', retryAfterMs: Number.isFinite(oldest) ? oldest - options.now : options.ttlMs };
    }
    identity.keys.set(name.key, { until: options.now + options.ttlMs, bytes: 0 });
    records.set(id(name), { fingerprint, token: options.token, answer: undefined, leaseUntil: options.now + options.leaseMs, expiresAt: options.now + options.ttlMs });
    return { status: 'claimed' };
  };
  const completeIn = (name: RecordName, fingerprint: string, answer: string, options: CompleteOptions): CompleteOutcome => {
    const found = live(name);
    if (found?.fingerprint !== fingerprint) return { status: 'gone' };
    if (found.answer !== undefined) return { status: 'kept', answer: found.answer };
    if ('orphanedOnly' in options ? found.leaseUntil > options.now : found.token !== options.token) return { status: 'orphanedOnly' in options ? 'pending' : 'gone' };
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
    renew(name, token, leaseUntil) {
      const found = live(name);
      if (found?.token !== token || found.answer !== undefined) return Promise.resolve(false);
      found.leaseUntil = leaseUntil;
      found.expiresAt = Math.max(found.expiresAt, leaseUntil);
      return Promise.resolve(true);
    },
    complete: (name, fingerprint, answer, options) => Promise.resolve(completeIn(name, fingerprint, answer, options)),
    release(name, token) {
      const found = live(name);
      if (found?.token === token && found.answer === undefined) {
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
