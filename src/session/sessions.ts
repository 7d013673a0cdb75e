/**
 * Browser sessions: an opaque id in the cookie, the upstream credential sealed in the store under
 * a hash of that id. A stolen store dump yields neither a usable cookie nor a usable token.
 * The seal binds the record, uid, environment and absolute end (credentials/cipher.ts): a record
 * whose uid, environment or absolute end was edited in the store does not open, and is deleted,
 * so write access to Redis cannot extend a session or move it to another person.
 * The store key stays a plain SHA-256 of the id: the id is 256 random bits, so its hash lets
 * nobody test a guess, and every live session keeps its key across a CREDENTIAL_KEY rotation.
 */
import { hash, randomBytes } from 'node:crypto';
import type { Environment } from '../environment';
import { isLegacySealed, type CredentialCipher } from '../credentials/cipher';
import type { UpstreamCredential } from '../upstream/credential';
import type { SessionCache } from './session-cache';
import type { PeekResult, SessionStore, TouchResult } from './session-store';

/** 256 bits from the CSPRNG, base64url (43 characters). */
const ID_BYTES = 32;
const ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;
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

  get store(): SessionStore {
    return this.options.store;
  }

  /** Creates a session and returns its id (for the cookie) and the session. */
  async create(environment: Environment, credential: UpstreamCredential): Promise<{ id: string; session: ActiveSession }> {
    const id = randomBytes(ID_BYTES).toString('base64url');
    const key = sessionKey(id);
    const now = this.clock();
    const absoluteExpiresAt = now + this.options.absoluteMs;
    const sealed = this.options.cipher.seal(credential, { record: key, environment, uid: credential.uid, absoluteExpiresAt });
    await this.options.store.create(
      key,
      { uid: credential.uid, environment, credential: sealed, createdAt: now, absoluteExpiresAt },
      this.options.idleMs,
    );
    const idleExpiresAt = Math.min(absoluteExpiresAt, now + this.options.idleMs);
    return { id, session: { key, uid: credential.uid, environment, credential, sealed, absoluteExpiresAt, idleExpiresAt } };
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

  /** A store write to a session; every replica's cached copy is dropped, whether it succeeded or not. */
  private async changing<T>(key: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      await this.options.cache?.invalidate(key);
    }
  }
}
