import type { Environment } from '../environment';

/** What the gateway keeps per browser session. `credential` is sealed (see credentials/cipher). */
export interface SessionRecord {
  readonly uid: string;
  readonly environment: Environment;
  readonly credential: string;
  /** Epoch ms. */
  readonly createdAt: number;
  /** Epoch ms after which the session is over, however active (the absolute timeout). */
  readonly absoluteExpiresAt: number;
  /** The `User-Agent` sent at login (session-index.ts: MAX_USER_AGENT), for the user's list of sessions. */
  readonly userAgent?: string;
  /** A MAC of what the list of sessions shows (sessions.ts), so an edit in the store is not shown. */
  readonly listingMac?: string;
}

export type TouchResult =
  | { readonly status: 'active'; readonly record: SessionRecord }
  | { readonly status: 'expired' }
  | { readonly status: 'missing' };

/** A read that is not activity: the record and when its idle life ends (epoch ms), unchanged. */
export type PeekResult =
  | { readonly status: 'active'; readonly record: SessionRecord; readonly idleExpiresAt: number }
  | { readonly status: 'expired' }
  | { readonly status: 'missing' };

/**
 * One interface, two implementations (memory, Redis), run through the same tests. Keys are the
 * hashed session ids; the store never sees a raw id. Every write carries a TTL. A key with a user
 * (session-index.ts) has an entry in that user's index, which every method below keeps in step
 * with the session, in the same round trip.
 */
export interface SessionStore {
  readonly kind: 'memory' | 'redis';
  /**
   * Stores a new session that lives `idleMs` unless touched (its `createdAt` is now) and adds it to
   * its user's index; answers the keys of that user's other live sessions beyond `maxPerUser`,
   * least recently used first, which the caller ends (none for a key without a user).
   */
  create(key: string, record: SessionRecord, idleMs: number, maxPerUser?: number): Promise<readonly string[]>;
  /**
   * Reads a session and extends its life by `idleMs`, never past its absolute end; one round trip.
   * A session past its absolute end is deleted and reported as expired. Its index entry records
   * the use.
   */
  touch(key: string, idleMs: number, now: number): Promise<TouchResult>;
  /**
   * Reads a session without extending its life (`session(touch: false)`), with when it ends if
   * nothing touches it; one round trip. A session past its absolute end is deleted and reported as expired.
   */
  peek(key: string, now: number): Promise<PeekResult>;
  /**
   * Replaces the sealed credential only if it is still `expected` (compare-and-set), so a late
   * answer carrying an older rotated token never overwrites a newer one. Keeps the TTL.
   */
  replaceCredential(key: string, expected: string, next: string): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Deletes the session only if its sealed credential is still `expected`; true if deleted. */
  deleteIfCredential(key: string, expected: string): Promise<boolean>;
  /** Throws when the store cannot be reached. */
  ping(): Promise<void>;
}
