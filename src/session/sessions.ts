/**
 * Browser sessions: an opaque id in the cookie, the upstream credential sealed in the store under
 * a hash of that id. A stolen store dump yields neither a usable cookie nor a usable token.
 * The seal binds the record, uid, environment and absolute end (credentials/cipher.ts): a record
 * whose uid, environment or absolute end was edited in the store does not open, and is deleted,
 * so write access to Redis cannot extend a session or move it to another person.
 * The store key is a plain SHA-256 of the cookie: its id is 256 random bits, so its hash lets
 * nobody test a guess, and every live session keeps its key across a CREDENTIAL_KEY rotation.
 * The cookie also names the session's user (a keyed name, session-index.ts), which puts the
 * session on its user's index and hash tag; a cookie of the id alone is a session made before.
 */
import { hash, randomBytes } from 'node:crypto';
import type { Environment } from '../environment';
import { isLegacySealed, type CredentialCipher } from '../credentials/cipher';
import type { DerivedKeys } from '../derived-keys';
import type { UpstreamCredential } from '../upstream/credential';
import type { SessionCache } from './session-cache';
import { MAX_USER_AGENT, userIndexKey, userName, userNames, type IndexedSessionStore } from './session-index';
import type { PeekResult, SessionRecord, TouchResult } from './session-store';

/** 256 bits from the CSPRNG, base64url (43 characters). */
const ID_BYTES = 32;
/** `<user>.<id>`, or the id alone (a session made before indexes). */
const ID_PATTERN = /^(?:[A-Za-z0-9_-]{22}\.)?[A-Za-z0-9_-]{43}$/;
/** How long a rolling restart may take: older replicas still seal sessions the old way meanwhile. */
const LEGACY_ROLLOUT_MS = 60 * 60_000;

export interface ActiveSession {
  /** The store key (hash of the id); never the id itself. */
  readonly key: string;
  readonly uid: string;
  readonly environment: Environment;
  readonly credential: UpstreamCredential;
  /** The sealed credential as stored, for compare-and-set on rotation. */
  readonly sealed: string;
  readonly absoluteExpiresAt: number;
  /** Epoch ms of the login. */
  readonly createdAt: number;
  /**
   * When the session ends unless a request arrives first: the last store touch (this request's,
   * or the one a session-cache entry came from) plus the idle timeout, never past the absolute end.
   */
  readonly idleExpiresAt: number;
}

export type ResolveResult =
  | { readonly status: 'active'; readonly session: ActiveSession; /** From the session cache: the store was not asked. */ readonly cached?: true }
  | { readonly status: 'expired' | 'missing' | 'malformed' };

/** A live session of a user's index, confirmed by its record: what `sessions` lists. */
export interface ListedSession {
  readonly key: string;
  readonly createdAt: number;
  readonly lastSeenAt: number;
  readonly userAgent?: string;
}

/** A session ended by key (the list, a revoke, the cap): whose it was, to sign it out upstream. */
export interface TakenSession {
  readonly environment: Environment;
  readonly uid: string;
  readonly credential: UpstreamCredential;
}

export interface SessionsOptions {
  readonly store: IndexedSessionStore;
  readonly cipher: CredentialCipher;
  readonly idleMs: number;
  readonly absoluteMs: number;
  readonly clock?: () => number;
  /** Resolved sessions remembered for a moment (see session-cache); none: every request asks the store. */
  readonly cache?: SessionCache<ActiveSession>;
  /** Names each user's index and session keys, MACs what the list shows and makes its ids. */
  readonly keys: DerivedKeys;
  /**
   * SESSION_MAX_PER_USER (default 10): live sessions one upstream user may hold; a login beyond it
   * ends the least recently used (a stolen password cannot pile up sessions unseen).
   */
  readonly maxPerUser?: number;
}

/** The store key of a cookie's session: `sgw:session:{<user>}:<hash>`, or `sgw:session:<hash>` for a cookie of the id alone. */
export function sessionKey(cookie: string): string {
  const dot = cookie.indexOf('.');
  const digest = hash('sha256', cookie, 'base64url');
  return dot < 0 ? `sgw:session:${digest}` : `sgw:session:{${cookie.slice(0, dot)}}:${digest}`;
}

/** How the audit trail names a session (by its store key): short, and never the id. */
export function sessionAuditId(key: string): string {
  return hash('sha256', key, 'hex').slice(0, 12);
}

export class Sessions {
  private readonly clock: () => number;
  /**
   * Sessions sealed by an earlier gateway did not bind their absolute end: one rollout long they
   * still open, but end no later than one absolute timeout (and a rolling restart's hour, during
   * which older replicas still create them) after this gateway started, whatever the store says.
   */
  private readonly legacyEnd: number;

  constructor(private readonly options: SessionsOptions) {
    this.clock = options.clock ?? Date.now;
    this.legacyEnd = this.clock() + options.absoluteMs + LEGACY_ROLLOUT_MS;
  }

  get store(): IndexedSessionStore {
    return this.options.store;
  }

  /**
   * Creates a session and returns its id (for the cookie), the session, and the keys of the user's
   * sessions beyond the cap, least recently used first, for the caller to end (user-sessions.ts).
   */
  async create(
    environment: Environment,
    credential: UpstreamCredential,
    { userAgent }: { readonly userAgent?: string | null } = {},
  ): Promise<{ id: string; session: ActiveSession; beyondCap: readonly string[] }> {
    const id = `${userName(this.options.keys, environment, credential.uid)}.${randomBytes(ID_BYTES).toString('base64url')}`;
    const key = sessionKey(id);
    const now = this.clock();
    const absoluteExpiresAt = now + this.options.absoluteMs;
    const sealed = this.options.cipher.seal(credential, { record: key, environment, uid: credential.uid, absoluteExpiresAt });
    const agent = userAgent ? userAgent.slice(0, MAX_USER_AGENT) : undefined;
    const record: SessionRecord = {
      uid: credential.uid, environment, credential: sealed, createdAt: now, absoluteExpiresAt,
      ...(agent ? { userAgent: agent } : {}),
      listingMac: this.listingMac(key, now, agent),
    };
    const beyondCap = await this.options.store.create(key, record, this.options.idleMs, this.options.maxPerUser ?? 10);
    const idleExpiresAt = Math.min(absoluteExpiresAt, now + this.options.idleMs);
    return { id, session: { key, uid: credential.uid, environment, credential, sealed, absoluteExpiresAt, createdAt: now, idleExpiresAt }, beyondCap };
  }

  /**
   * Looks up the session of a cookie value and, unless `touch` is false, extends its idle life.
   * Throws when the store is down. An active session may come from the cache, without a store
   * round trip; a read that does not touch is never remembered (a later request within the
   * cache's life would then not extend the session either).
   */
  async resolve(id: string, { touch = true }: { readonly touch?: boolean } = {}): Promise<ResolveResult> {
    if (!ID_PATTERN.test(id)) return { status: 'malformed' };
    const key = sessionKey(id);
    const cache = this.options.cache;
    const remembered = cache?.get(key);
    if (remembered) return { status: 'active', session: remembered, cached: true };
    if (!touch) return this.read(key, false);
    if (!cache) return this.read(key, true);
    return cache.load(key, () => this.read(key, true), (result) => (result.status === 'active' ? result.session : undefined));
  }

  private async read(key: string, touch: boolean): Promise<ResolveResult> {
    const now = this.clock();
    const result: TouchResult | PeekResult = touch ? await this.options.store.touch(key, this.options.idleMs, now) : await this.options.store.peek(key, now);
    if (result.status !== 'active') return result;
    const { record } = result;
    const binding = { record: key, environment: record.environment, uid: record.uid, absoluteExpiresAt: record.absoluteExpiresAt };
    let credential: UpstreamCredential;
    try {
      credential = this.options.cipher.open(record.credential, binding);
    } catch {
      // Sealed with another key (CREDENTIAL_KEY rotated), tampered with, or its clear uid,
      // environment or absolute end altered in the store: unusable.
      await this.options.store.delete(key);
      return { status: 'missing' };
    }
    const absoluteExpiresAt = isLegacySealed(record.credential) ? Math.min(record.absoluteExpiresAt, this.legacyEnd) : record.absoluteExpiresAt;
    if (absoluteExpiresAt <= now) {
      await this.options.store.delete(key);
      return { status: 'expired' };
    }
    const idleEnd = touch || !('idleExpiresAt' in result) ? now + this.options.idleMs : (result.idleExpiresAt as number);
    return {
      status: 'active',
      session: {
        key,
        uid: record.uid,
        environment: record.environment,
        credential,
        sealed: record.credential,
        absoluteExpiresAt,
        createdAt: record.createdAt,
        idleExpiresAt: Math.min(absoluteExpiresAt, idleEnd),
      },
    };
  }

  /**
   * Keeps a rotated credential unless another one was stored since this request read the session.
   * Returns the new sealed text, or undefined when a newer credential won.
   */
  async rotate(session: ActiveSession, next: UpstreamCredential): Promise<string | undefined> {
    const binding = { record: session.key, environment: session.environment, uid: session.uid, absoluteExpiresAt: session.absoluteExpiresAt };
    const sealed = this.options.cipher.seal(next, binding);
    return (await this.changing(session.key, () => this.options.store.replaceCredential(session.key, session.sealed, sealed))) ? sealed : undefined;
  }

  /**
   * Ends the session because the upstream refused its credential, unless a newer credential was
   * stored meanwhile (a racing answer rotated it): a stale token's 401 must not end a live session.
   */
  async endIfCurrent(session: Pick<ActiveSession, 'key' | 'sealed'>): Promise<boolean> {
    return this.changing(session.key, () => this.options.store.deleteIfCredential(session.key, session.sealed));
  }

  async end(session: Pick<ActiveSession, 'key'>): Promise<void> {
    await this.changing(session.key, () => this.options.store.delete(session.key));
  }

  /**
   * A user's live sessions, most recently used first: those their index names (under
   * CREDENTIAL_KEY and each previous key, whose sessions keep their names) whose record opens as
   * this user's and shows what the gateway wrote. An entry that does not is not listed.
   */
  async listed(environment: Environment, uid: string): Promise<ListedSession[]> {
    const now = this.clock();
    const indexes = userNames(this.options.keys, environment, uid).map(userIndexKey);
    const found = (await Promise.all(indexes.map((index) => this.options.store.indexed(index, now)))).flat();
    const listed = found.flatMap(({ key, record, lastSeenAt }): ListedSession[] => {
      if (record.uid !== uid || record.environment !== environment) return [];
      if (!record.listingMac || !this.options.keys.verify('sessions', record.listingMac, 'listing', key, String(record.createdAt), record.userAgent ?? '')) return [];
      try {
        this.options.cipher.open(record.credential, { record: key, environment, uid, absoluteExpiresAt: record.absoluteExpiresAt });
      } catch {
        return [];
      }
      return [{ key, createdAt: record.createdAt, lastSeenAt, ...(record.userAgent ? { userAgent: record.userAgent } : {}) }];
    });
    return listed.sort((a, b) => b.lastSeenAt - a.lastSeenAt);
  }

  /**
   * Ends a session by its key (the list, a revoke, the cap), dropped by every replica's cache;
   * whose it was, to sign it out upstream. Undefined when it had already ended (someone else took
   * it: they sign it out) or its record does not open (nothing to sign out).
   */
  async take(key: string): Promise<TakenSession | undefined> {
    const record = await this.changing(key, () => this.options.store.take(key));
    if (!record) return undefined;
    const { environment, uid, absoluteExpiresAt } = record;
    try {
      return { environment, uid, credential: this.options.cipher.open(record.credential, { record: key, environment, uid, absoluteExpiresAt }) };
    } catch {
      return undefined;
    }
  }

  /** The id `sessions` shows for a session: a MAC of its key, which opens nothing and names it to its user only. */
  handleOf(key: string): string {
    return this.options.keys.mac('sessions', 'handle', key);
  }

  /** Whether `handle` is the id of the session `key` (under any configured key). */
  isHandleOf(handle: string, key: string): boolean {
    return this.options.keys.verify('sessions', handle, 'handle', key);
  }

  /** What the list shows of a session (its login time, its user agent), bound to its key. */
  private listingMac(key: string, createdAt: number, userAgent: string | undefined): string {
    return this.options.keys.mac('sessions', 'listing', key, String(createdAt), userAgent ?? '');
  }

  /** A store write to a session; every replica's cached copy is dropped, whether it succeeded or not. */
  private async changing<T>(key: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      await this.options.cache?.invalidate(key);
    }
  }
}
