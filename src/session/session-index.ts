/**
 * Each upstream user's index of their browser sessions, kept by the session store beside the
 * sessions it names: what `sessions`, `endSession`, `logoutEverywhere`, the operators' revoke and
 * the cap (SESSION_MAX_PER_USER) read, without a keyspace scan.
 *
 * Layout: a user is a keyed name (derived-keys.ts `name('session-user', environment, uid)`: no uid
 * in clear, nothing a Redis reader can test a guess against). A session made since indexes exist
 * carries that name in its cookie (`<user>.<id>`), so its store key is
 * `sgw:session:{<user>}:<sha256 of the cookie>` and its user's index `sgw:session:{<user>}:index`:
 * one hash tag per user, so the script that creates, touches or ends a session also updates its
 * index on one Cluster slot. The name opens nothing: the cookie is the user's own, and holding it
 * already answers `session { uid }` in clear.
 *
 * The index is a list of names, never an authority: an entry is `<last used>:<end unless used
 * again>` (epoch ms) per session key. Every entry is read through its session's record, which is
 * sealed (credentials/cipher.ts binds key, uid, environment and absolute end) and carries a MAC of
 * what the list shows (`listingMac`), so an entry planted, copied or edited in Redis names nothing
 * that is listed or ended as someone else's. Entries of ended or expired sessions are dropped when
 * the index is next read or written; the index expires with the last of its sessions.
 *
 * Sessions made before indexes (a cookie of the id alone, `sgw:session:<hash>`) have no entry:
 * they keep working, are not listed (but as the current session) and end at logout or timeout.
 */
import type { DerivedKeys } from '../derived-keys';
import type { Environment } from '../environment';
import type { SessionRecord, SessionStore } from './session-store';

/** `userAgent` as sent at login, cut to this many characters. */
export const MAX_USER_AGENT = 200;

/** A session as its user's index found it: its record (not touched) and when it was last used. */
export interface IndexedSession {
  readonly key: string;
  readonly record: SessionRecord;
  /** Epoch ms of the last store touch (a login, or a request the session cache did not answer). */
  readonly lastSeenAt: number;
}

/**
 * What a session store keeps beside its sessions. Both stores implement it, and
 * test/session/session-index.test.ts runs the same spec over both. `create` adds a session to its
 * user's index and answers the sessions beyond the cap; `touch` moves the entry on; every delete
 * (`delete`, `deleteIfCredential`, an expiry found on touch or peek) drops it.
 */
export interface SessionIndex {
  /**
   * The sessions an index names that are still live (unordered), each with its record as stored.
   * Entries past their end, or whose record is gone, are dropped from the index.
   */
  indexed(indexKey: string, now: number): Promise<IndexedSession[]>;
  /** Deletes a session and its index entry in one step; the record it held, if it still existed. */
  take(key: string): Promise<SessionRecord | undefined>;
}

export type IndexedSessionStore = SessionStore & SessionIndex;

const PREFIX = 'sgw:session:';
/** `sgw:session:{<user>}:<hash>`: the user between the braces. */
const INDEXED_KEY = /^sgw:session:\{([A-Za-z0-9_-]+)\}:[A-Za-z0-9_-]+$/;

/** The keyed name of a user under CREDENTIAL_KEY: their new sessions' cookies and keys carry it. */
export function userName(keys: Pick<DerivedKeys, 'name'>, environment: Environment, uid: string): string {
  return keys.name('session-user', environment, uid);
}

/** The user's names under CREDENTIAL_KEY and each previous key: sessions keep the name they were made with. */
export function userNames(keys: Pick<DerivedKeys, 'names'>, environment: Environment, uid: string): string[] {
  return keys.names('session-user', environment, uid);
}

/** The index of one user (a keyed name). */
export function userIndexKey(user: string): string {
  return `${PREFIX}{${user}}:index`;
}

/** The index a session key belongs to; undefined for a session made before indexes. */
export function indexKeyOf(sessionKey: string): string | undefined {
  const user = INDEXED_KEY.exec(sessionKey)?.[1];
  return user === undefined ? undefined : userIndexKey(user);
}

/** `<last used>:<end>`, as an index entry holds it. */
export function indexEntry(lastSeenAt: number, endsAt: number): string {
  return `${lastSeenAt}:${endsAt}`;
}

/** An index entry's times, or undefined when it is not one. */
export function parseIndexEntry(entry: string): { readonly lastSeenAt: number; readonly endsAt: number } | undefined {
  const match = /^(\d+):(\d+)$/.exec(entry);
  return match ? { lastSeenAt: Number(match[1]), endsAt: Number(match[2]) } : undefined;
}
