/**
 * Browser sessions: an opaque id in the cookie, the upstream credential sealed in the store under
 * a hash of that id. A stolen store dump yields neither a usable cookie nor a usable token.
 */
import { hash, randomBytes } from 'node:crypto';
import type { Environment } from '../environment';
import type { CredentialCipher } from '../credentials/cipher';
import type { UpstreamCredential } from '../credentials/types';
import type { SessionCache } from './session-cache';
import type { SessionStore } from './store';

/** 256 bits from the CSPRNG, base64url (43 characters). */
const ID_BYTES = 32;
const ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export interface ActiveSession {
  /** The store key (hash of the id); never the id itself. */
  readonly key: string;
  readonly uid: string;
  readonly environment: Environment;
  readonly credential: UpstreamCredential;
  /** The sealed credential as stored, for compare-and-set on rotation. */
  readonly sealed: string;
  readonly absoluteExpiresAt: number;
  /**
   * When the session ends unless a request arrives first: the last store touch (this request's,
   * or the one a session-cache entry came from) plus the idle timeout, never past the absolute end.
   */
  readonly idleExpiresAt: number;
}

export type ResolveResult =
  | { readonly status: 'active'; readonly session: ActiveSession; /** From the session cache: the store was not asked. */ readonly cached?: true }
  | { readonly status: 'expired' | 'missing' | 'malformed' };

export interface SessionsOptions {
  readonly store: SessionStore;
  readonly cipher: CredentialCipher;
  readonly idleMs: number;
  readonly absoluteMs: number;
  readonly clock?: () => number;
  /** Resolved sessions remembered for a moment (see session-cache); none: every request asks the store. */
  readonly cache?: SessionCache<ActiveSession>;
}

export function sessionKey(id: string): string {
  return `sgw:session:${hash('sha256', id, 'base64url')}`;
}

/** How the audit trail names a session (by its store key): short, and never the id. */
export function sessionAuditId(key: string): string {
  return hash('sha256', key, 'hex').slice(0, 12);
}

export class Sessions {
  private readonly clock: () => number;

  constructor(private readonly options: SessionsOptions) {
    this.clock = options.clock ?? Date.now;
  }

  get store(): SessionStore {
    return this.options.store;
  }

  /** Creates a session and returns its id (for the cookie) and the session. */
  async create(environment: Environment, credential: UpstreamCredential): Promise<{ id: string; session: ActiveSession }> {
    const id = randomBytes(ID_BYTES).toString('base64url');
    const key = sessionKey(id);
    const now = this.clock();
    const sealed = this.options.cipher.seal(credential, { record: key, environment, uid: credential.uid });
    const absoluteExpiresAt = now + this.options.absoluteMs;
    await this.options.store.create(
      key,
      { uid: credential.uid, environment, credential: sealed, createdAt: now, absoluteExpiresAt },
      this.options.idleMs,
    );
    const idleExpiresAt = Math.min(absoluteExpiresAt, now + this.options.idleMs);
    return { id, session: { key, uid: credential.uid, environment, credential, sealed, absoluteExpiresAt, idleExpiresAt } };
  }

  /**
   * Looks up the session of a cookie value and extends its idle life. Throws when the store is
   * down. An active session may come from the cache, without a store round trip.
   */
  async resolve(id: string): Promise<ResolveResult> {
    if (!ID_PATTERN.test(id)) return { status: 'malformed' };
    const key = sessionKey(id);
    const cache = this.options.cache;
    if (!cache) return this.touch(key);
    const remembered = cache.get(key);
    if (remembered) return { status: 'active', session: remembered, cached: true };
    return cache.load(key, () => this.touch(key), (result) => (result.status === 'active' ? result.session : undefined));
  }

  private async touch(key: string): Promise<ResolveResult> {
    const now = this.clock();
    const result = await this.options.store.touch(key, this.options.idleMs, now);
    if (result.status !== 'active') return result;
    const { record } = result;
    let credential: UpstreamCredential;
    try {
      credential = this.options.cipher.open(record.credential, { record: key, environment: record.environment, uid: record.uid });
    } catch {
      // Sealed with another key (CREDENTIAL_KEY rotated), tampered with, or its clear uid or
      // environment altered in the store: unusable.
      await this.options.store.delete(key);
      return { status: 'missing' };
    }
    return {
      status: 'active',
      session: {
        key,
        uid: record.uid,
        environment: record.environment,
        credential,
        sealed: record.credential,
        absoluteExpiresAt: record.absoluteExpiresAt,
        idleExpiresAt: Math.min(record.absoluteExpiresAt, now + this.options.idleMs),
      },
    };
  }

  /**
   * Keeps a rotated credential unless another one was stored since this request read the session.
   * Returns the new sealed text, or undefined when a newer credential won.
   */
  async rotate(session: ActiveSession, next: UpstreamCredential): Promise<string | undefined> {
    const sealed = this.options.cipher.seal(next, { record: session.key, environment: session.environment, uid: session.uid });
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

  /** A store write to a session; every replica's cached copy is dropped, whether it succeeded or not. */
  private async changing<T>(key: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      await this.options.cache?.invalidate(key);
    }
  }
}
