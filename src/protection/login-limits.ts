/**
 * Login limits, for `login` and the drop-in front's sign-in alike (the same counters, so an
 * attacker gains nothing by switching doors). Checked before the upstream is asked, in this order:
 *
 * 1. per client address (`login-address`, RATE_LIMIT_LOGIN_ADDRESS): failed attempts, whatever the
 *    e-mail (credential stuffing). IPv6 addresses count by /64. A successful login takes back its
 *    own attempt (and only it, never the address's other failures): a batch job behind one address
 *    that signs in once per step (the upstream's tutorial clients do) is not refused, while an
 *    attacker who signs in to an account of their own between guesses still counts every guess.
 * 2. per client address and e-mail (`login-email`, RATE_LIMIT_LOGIN): brute force on one account
 *    from one place. A successful login clears it, so only failures add up: a person who signs
 *    in six times in a quarter of an hour is not locked out.
 * 3. per e-mail from any address (`login-account`, RATE_LIMIT_LOGIN_ACCOUNT): a guess spread over
 *    many addresses, with a doubling wait instead of a lock (account-backoff.ts). Last, so that
 *    an attempt refused by the limits of the attacker's own address never counts against the
 *    account's owner. Addresses (IPv6 /64s) the account signed in from successfully in the last
 *    30 days are left out of it (OWASP's "device cookie" idea, by address): an attacker who takes
 *    the one attempt admitted after each wait cannot keep the owner out from a known place, where
 *    limits 1 and 2 still hold.
 *
 * Attempts are counted when admitted, before the upstream answers: counting the upstream's
 * refusals afterwards would let concurrent attempts (on several replicas) all pass the check
 * together. So "failures" are, exactly, admitted attempts since the last successful login; an
 * attempt whose outcome is unknown (the upstream failed) stays counted, which errs on the safe
 * side. While limited, the right password is refused too: the upstream is not asked.
 *
 * These fail closed: while the store cannot be reached, logins answer SESSION_STORE_UNAVAILABLE
 * (no session could be kept anyway) rather than allowing unlimited guesses. Keys hold HMACs under
 * the key-names key derived from CREDENTIAL_KEY, never an address or e-mail, nor a bare hash that
 * a Redis reader could test a list of e-mails against. A CREDENTIAL_KEY rotation therefore starts
 * these counters afresh, once.
 */
import type { LimitsConfig } from '../config';
import type { DerivedKeys } from '../derived-keys';
import type { Environment } from '../environment';
import { gatewayError, type GatewayError } from '../errors';
import type { LogEvents } from '../observability/log-events';
import type { GatewayMetrics } from '../observability/metrics';
import type { StoreHealth } from '../observability/store-health';
import type { AccountBackoffStore } from './account-backoff';
import { addressGroup } from './client-address';
import { overLimit, type RateDecision, type RateLimitStore } from './rate-limiter';

/** The longest wait the per-account limit imposes between attempts. */
const ACCOUNT_WAIT_CAP_MS = 15 * 60_000;
/** How long an address the account signed in from stays out of its back-off. */
const KNOWN_ADDRESS_MS = 30 * 24 * 60 * 60_000;

export interface LoginAttempt {
  /** The client's address (client-address.ts), grouped here. */
  readonly address: string;
  /** As the client typed it: compared trimmed and lower-cased, as devise does. */
  readonly email: string;
  /** Accounts of the two upstream environments are different accounts. */
  readonly environment: Environment;
}

export interface LoginLimits {
  /** Counts the attempt, or refuses it: RATE_LIMITED (with Retry-After), SESSION_STORE_UNAVAILABLE. */
  admit(attempt: LoginAttempt): Promise<GatewayError | undefined>;
  /** The upstream accepted the password: clears the e-mail's failures (best effort). */
  succeeded(attempt: LoginAttempt): Promise<void>;
}

export interface LoginLimitsOptions {
  /** Counters that throw while their store is unreachable (never the fail-open wrapper). */
  readonly counters: RateLimitStore;
  readonly accounts: AccountBackoffStore;
  readonly limits: Pick<LimitsConfig, 'login' | 'loginPerAddress' | 'loginPerAccount'>;
  readonly health: StoreHealth;
  readonly log: LogEvents;
  readonly metrics: GatewayMetrics;
  /** Names the counters' keys (HMAC), so no key shows or lets anyone test an e-mail. */
  readonly names: Pick<DerivedKeys, 'name'>;
}

function keysWith(names: LoginLimitsOptions['names'], attempt: LoginAttempt) {
  const group = addressGroup(attempt.address);
  const email = attempt.email.trim().toLowerCase();
  return {
    address: `login-address:${names.name('login-address', group)}`,
    email: `login-email:${names.name('login-email', attempt.environment, group, email)}`,
    account: `login-account:${names.name('login-account', attempt.environment, email)}`,
    known: `login-known:${names.name('login-known', attempt.environment, email, group)}`,
  };
}

export function createLoginLimits({ counters, accounts, limits, health, log, metrics, names }: LoginLimitsOptions): LoginLimits {
  // Named once per attempt: admit() and succeeded() get the same attempt, and each name is an HMAC.
  const named = new WeakMap<LoginAttempt, ReturnType<typeof keysWith>>();
  const keys = (attempt: LoginAttempt) => {
    let key = named.get(attempt);
    if (!key) named.set(attempt, (key = keysWith(names, attempt)));
    return key;
  };
  const checks = (key: ReturnType<typeof keysWith>, known: Promise<boolean>): [string, () => Promise<RateDecision>][] => [
    ['login-address', () => counters.hit(key.address, limits.loginPerAddress.max, limits.loginPerAddress.windowMs)],
    ['login-email', () => counters.hit(key.email, limits.login.max, limits.login.windowMs)],
    [
      'login-account',
      async () =>
        (await known)
          ? { allowed: true, retryAfterMs: 0 }
          : accounts.attempt(key.account, limits.loginPerAccount.max, limits.loginPerAccount.windowMs, ACCOUNT_WAIT_CAP_MS),
    ],
  ];
  return {
    async admit(attempt) {
      try {
        const key = keys(attempt);
        // Only a read, with nothing counted: asked beside the first check, it adds no round trip.
        // Unused when an earlier check refuses (its failure is then not this attempt's).
        const known = accounts.knows(key.known);
        known.catch(() => undefined);
        for (const [name, check] of checks(key, known)) {
          const decision = await check();
          if (!decision.allowed) return overLimit({ log, metrics }, name, decision);
        }
        health.ok();
        return undefined;
      } catch (error) {
        health.failed(error);
        return gatewayError('SESSION_STORE_UNAVAILABLE', undefined, { cause: error });
      }
    },

    async succeeded(attempt) {
      const key = keys(attempt);
      try {
        await Promise.all([
          // A weight of -1 under a limit nothing reaches: the attempt admit() counted, given back.
          counters.hit(key.address, Number.MAX_SAFE_INTEGER, limits.loginPerAddress.windowMs, -1),
          counters.reset(key.email, limits.login.windowMs),
          accounts.clear(key.account),
          accounts.learn(key.known, KNOWN_ADDRESS_MS),
        ]);
      } catch (error) {
        health.failed(error);
      }
    },
  };
}
