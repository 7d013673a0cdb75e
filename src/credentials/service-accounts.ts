/**
 * Service accounts: an API key names an account; the gateway signs that account in upstream
 * itself and shares the credential with every replica (sealed, in the session store's Redis).
 *
 * - Single flight: concurrent requests of one process share one sign-in; across replicas a lock
 *   on the cache store's lock service elects one signer while the others wait for its release
 *   (published, not polled), then read its result.
 * - Renewal: an expired credential (the upstream's `expiry`), or one the upstream refused with a
 *   401, is replaced by one new sign-in; the refused one is only discarded if it is still current.
 * - Backoff: a failed sign-in (wrong password, upstream down) blocks further attempts of every
 *   replica for 2 s, doubling per failure up to 5 minutes, so a wrong password cannot hammer the
 *   upstream (or get the account locked there).
 * - Redis down: each replica keeps and uses its own copy, and signs in for itself.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ServiceAccountConfig } from '../config';
import type { Locks } from '../cache/cache-store';
import { gatewayError, GatewayError } from '../errors';
import type { LogEvents } from '../observability/log-events';
import type { GatewayMetrics } from '../observability/metrics';
import type { StoreHealth } from '../observability/store-health';
import type { CredentialBinding, CredentialCipher } from './cipher';
import { accountKeys, type AccountCredentialStore, type AccountState, type SignInBackoff } from './account-store';
import type { UpstreamSignIn as SignInOutcome } from './upstream-auth';
import type { UpstreamCredential } from '../upstream/credential';

export type ServiceAccount = ServiceAccountConfig;

/**
 * A service account's credential is bound to its record and to the account's configured e-mail
 * and environment: after either changes in the configuration, the stored one no longer opens.
 */
function bindingOf(account: ServiceAccount): CredentialBinding {
  return { record: accountKeys.credential(account.name), environment: account.environment, uid: account.email };
}

/** A credential as one request uses it; `sealed` is what the store held (for compare-and-set). */
export interface CredentialLease {
  readonly credential: UpstreamCredential;
  readonly sealed: string;
}


export const BACKOFF_BASE_MS = 2_000;
export const BACKOFF_MAX_MS = 5 * 60_000;
/** A credential this close to its upstream expiry is renewed rather than used. */
const RENEW_MARGIN_MS = 1_000;
/** Without an `expiry` from the upstream, the shared copy is kept this long. */
const DEFAULT_LIFETIME_MS = 24 * 3_600_000;
/** Rounds of waiting for another replica's sign-in before signing in regardless. */
const MAX_WAITS = 3;

/** Finds the account of an API key: the key's SHA-256 compared with every account's in constant time. */
export function apiKeyVerifier(accounts: readonly ServiceAccount[]): (key: string) => ServiceAccount | undefined {
  return (key) => {
    const digest = createHash('sha256').update(key).digest();
    let found: ServiceAccount | undefined;
    for (const account of accounts) {
      if (timingSafeEqual(digest, account.apiKeySha256) && !found) found = account;
    }
    return found;
  };
}

/** The API key of `Authorization: Bearer <key>`, if the header has that form. */
export function bearerKey(header: string | null): string | undefined {
  const match = /^Bearer[ \t]+([\x21-\x7e]{1,512})[ \t]*$/i.exec(header ?? '');
  return match?.[1];
}

export interface ServiceAccountCredentialsOptions {
  readonly store: AccountCredentialStore;
  /** The cache store's lock service (fail-open: a local lock when its Redis is down). */
  readonly locks: Locks;
  readonly cipher: CredentialCipher;
  readonly signIn: (account: ServiceAccount) => Promise<SignInOutcome>;
  readonly storeHealth: StoreHealth;
  readonly log: LogEvents;
  readonly metrics: GatewayMetrics;
  /** How long a sign-in may hold the lock (the upstream timeout and a margin). */
  readonly lockMs: number;
  readonly clock?: () => number;
}

interface LocalCopy {
  lease?: CredentialLease;
  backoff?: SignInBackoff;
}

export class ServiceAccountCredentials {
  private readonly clock: () => number;
  private readonly local = new Map<string, LocalCopy>();
  private readonly flights = new Map<string, Promise<CredentialLease>>();

  constructor(private readonly options: ServiceAccountCredentialsOptions) {
    this.clock = options.clock ?? Date.now;
  }

  /** A usable credential for the account: the shared one, or a new sign-in. Throws a GatewayError. */
  async lease(account: ServiceAccount): Promise<CredentialLease> {
    const state = await this.readShared(account);
    const lease = this.usable(account, state.sealed);
    if (lease) return lease;
    this.throwIfBackingOff(state);
    return this.signInOnce(account, state.sealed ? 'expired' : 'missing');
  }

  /**
   * The upstream refused `refused` (401): forget it, unless another request already replaced it,
   * and lease again (one new sign-in for all who saw the refusal).
   */
  async renew(account: ServiceAccount, refused: CredentialLease): Promise<CredentialLease> {
    const copy = this.copyOf(account.name);
    if (copy.lease?.sealed === refused.sealed) delete copy.lease;
    await this.shared(() => this.options.store.discard(account.name, refused.sealed));
    const state = await this.readShared(account);
    const lease = state.sealed !== refused.sealed ? this.usable(account, state.sealed) : undefined;
    if (lease) return lease;
    this.throwIfBackingOff(state);
    return this.signInOnce(account, 'refused', refused.sealed);
  }

  /** Keeps a token the upstream rotated, unless a newer one was stored meanwhile. */
  async rotated(account: ServiceAccount, before: CredentialLease, next: UpstreamCredential): Promise<CredentialLease | undefined> {
    const sealed = this.options.cipher.seal(next, bindingOf(account));
    const lease = { credential: next, sealed };
    // Unreachable store (undefined): this process keeps the token for itself.
    if ((await this.shared(() => this.options.store.replace(account.name, before.sealed, sealed))) === false) return undefined;
    const copy = this.copyOf(account.name);
    if (!copy.lease || copy.lease.sealed === before.sealed) copy.lease = lease;
    return lease;
  }

  private copyOf(name: string): LocalCopy {
    let copy = this.local.get(name);
    if (!copy) this.local.set(name, (copy = {}));
    return copy;
  }

  /** A store command; undefined (and the outage noted) when the store cannot be reached. */
  private async shared<T>(command: () => Promise<T>): Promise<T | undefined> {
    try {
      const result = await command();
      this.options.storeHealth.ok();
      return result;
    } catch (error) {
      this.options.storeHealth.failed(error);
      return undefined;
    }
  }

  /** The shared state, or this process's own copy while the store cannot be reached. */
  private async readShared(account: ServiceAccount): Promise<AccountState> {
    const state = await this.shared(() => this.options.store.read(account.name));
    if (state) return state;
    const copy = this.copyOf(account.name);
    return { ...(copy.lease ? { sealed: copy.lease.sealed } : {}), ...(copy.backoff ? { backoff: copy.backoff } : {}) };
  }

  /** Nobody signs in while a failed sign-in's backoff runs: the caller gets its error. */
  private throwIfBackingOff(state: AccountState): void {
    if (state.backoff && state.backoff.until > this.clock()) throw this.backoffError(state.backoff);
  }

  private usable(account: ServiceAccount, sealed: string | undefined): CredentialLease | undefined {
    if (!sealed) return undefined;
    const copy = this.copyOf(account.name);
    let credential: UpstreamCredential;
    if (copy.lease?.sealed === sealed) {
      credential = copy.lease.credential;
    } else {
      try {
        credential = this.options.cipher.open(sealed, bindingOf(account));
      } catch {
        // Sealed under another CREDENTIAL_KEY, or for the account's former e-mail or environment:
        // unusable, sign in again.
        return undefined;
      }
    }
    if (credential.expiry !== undefined && credential.expiry * 1000 - RENEW_MARGIN_MS <= this.clock()) return undefined;
    const lease = { credential, sealed };
    copy.lease = lease;
    return lease;
  }

  /** One sign-in per account per process at a time; the others share its result. */
  private signInOnce(account: ServiceAccount, reason: 'missing' | 'expired' | 'refused', refused?: string): Promise<CredentialLease> {
    let flight = this.flights.get(account.name);
    if (!flight) {
      flight = this.signInShared(account, reason, refused).finally(() => this.flights.delete(account.name));
      this.flights.set(account.name, flight);
    }
    return flight;
  }

  /**
   * Callers checked the backoff in the state they read. `refused`: the sealed credential the
   * upstream refused (any other usable one will do).
   */
  private async signInShared(account: ServiceAccount, reason: 'missing' | 'expired' | 'refused', refused?: string): Promise<CredentialLease> {
    const { locks, lockMs } = this.options;
    const lockKey = accountKeys.signInLock(account.name);
    for (let round = 0; ; round++) {
      const token = randomBytes(12).toString('base64url');
      const held = round >= MAX_WAITS ? token : await locks.acquireLock(lockKey, lockMs, token);
      if (held) {
        try {
          // Another replica may have finished between our read and our lock.
          const state = await this.readShared(account);
          const fresh = state.sealed === refused ? undefined : this.usable(account, state.sealed);
          if (fresh) return fresh;
          this.throwIfBackingOff(state);
          return await this.signInNow(account, reason, state.backoff);
        } finally {
          if (round < MAX_WAITS) await locks.releaseLock(lockKey, token);
        }
      }
      await locks.waitForRelease(lockKey, lockMs);
      const state = await this.readShared(account);
      const lease = state.sealed === refused ? undefined : this.usable(account, state.sealed);
      if (lease) return lease;
      this.throwIfBackingOff(state);
    }
  }

  private async signInNow(account: ServiceAccount, reason: 'missing' | 'expired' | 'refused', previous: SignInBackoff | undefined): Promise<CredentialLease> {
    const { store, cipher, log, metrics } = this.options;
    let outcome: SignInOutcome;
    try {
      outcome = await this.options.signIn(account);
    } catch (error) {
      outcome = { ok: false, code: error instanceof GatewayError && error.code === 'UPSTREAM_ERROR' ? 'UPSTREAM_ERROR' : 'UPSTREAM_UNAVAILABLE' };
    }
    const copy = this.copyOf(account.name);
    if (!outcome.ok) {
      const prior = previous ?? copy.backoff;
      const failures = (prior?.failures ?? 0) + 1;
      const delay = Math.min(BACKOFF_BASE_MS * 2 ** (failures - 1), BACKOFF_MAX_MS);
      const backoff: SignInBackoff = { until: this.clock() + delay, failures, code: outcome.code };
      copy.backoff = backoff;
      metrics.accountSignIn(account.name, outcome.code === 'UNAUTHENTICATED' ? 'refused' : 'failed');
      log.accountSignInFailed({ account: account.name, environment: account.environment, code: outcome.code, failures, retryInMs: delay });
      // The failure count outlives the delay, so repeated failures keep doubling it.
      await this.shared(() => store.recordFailure(account.name, backoff, delay + BACKOFF_MAX_MS));
      throw this.backoffError(backoff);
    }
    const { credential } = outcome;
    const sealed = cipher.seal(credential, bindingOf(account));
    const lifetime = credential.expiry !== undefined ? credential.expiry * 1000 - this.clock() : DEFAULT_LIFETIME_MS;
    const lease = { credential, sealed };
    copy.lease = lease;
    delete copy.backoff;
    metrics.accountSignIn(account.name, 'ok');
    log.accountSignedIn({ account: account.name, environment: account.environment, reason });
    await this.shared(() => store.write(account.name, sealed, Math.max(1, lifetime)));
    return lease;
  }

  private backoffError(backoff: SignInBackoff): GatewayError {
    const seconds = Math.max(1, Math.ceil((backoff.until - this.clock()) / 1000));
    const message =
      backoff.code === 'UNAUTHENTICATED'
        ? 'The service account could not sign in upstream (its configured credentials were refused).'
        : 'The service account could not sign in upstream.';
    const code = backoff.code;
    return gatewayError(code, message, { headers: { 'retry-after': String(seconds) } });
  }
}
