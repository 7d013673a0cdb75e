/**
 * Where service accounts' upstream credentials are shared by replicas: the session store's Redis
 * (never evicting), or process memory without Redis. One interface, two implementations, run
 * through the same tests. Per account: the sealed credential (TTL = its upstream expiry) and the
 * sign-in backoff after failures, under one hash tag `{<name>}`.
 */
import type { RedisClient } from '../redis';

export type SignInFailureCode = 'UNAUTHENTICATED' | 'UPSTREAM_UNAVAILABLE' | 'UPSTREAM_ERROR';

/** After a failed sign-in, nobody signs in again before `until` (epoch ms). */
export interface SignInBackoff {
  readonly until: number;
  readonly failures: number;
  readonly code: SignInFailureCode;
}

export interface AccountState {
  readonly sealed?: string;
  readonly backoff?: SignInBackoff;
}

export interface AccountCredentialStore {
  readonly kind: 'memory' | 'redis';
  read(name: string): Promise<AccountState>;
  /** Stores a freshly signed-in credential for `ttlMs` and forgets any backoff. */
  write(name: string, sealed: string, ttlMs: number): Promise<void>;
  /** Compare-and-set (keeps the TTL): a rotated token never overwrites a newer one. */
  replace(name: string, expected: string, next: string): Promise<boolean>;
  /** Forgets the credential if it is still `expected` (the upstream refused it). */
  discard(name: string, expected: string): Promise<boolean>;
  recordFailure(name: string, backoff: SignInBackoff, ttlMs: number): Promise<void>;
}

export const accountKeys = {
  credential: (name: string) => `sgw:account:{${name}}:credential`,
  backoff: (name: string) => `sgw:account:{${name}}:backoff`,
  /** The sign-in lock (on the cache store's lock service). */
  signInLock: (name: string) => `sgw:account:{${name}}:sign-in-lock`,
};

function parseBackoff(text: string | null | undefined): SignInBackoff | undefined {
  if (!text) return undefined;
  try {
    const value = JSON.parse(text) as Partial<SignInBackoff>;
    if (typeof value.until !== 'number' || typeof value.failures !== 'number') return undefined;
    const code = value.code === 'UNAUTHENTICATED' || value.code === 'UPSTREAM_ERROR' ? value.code : 'UPSTREAM_UNAVAILABLE';
    return { until: value.until, failures: value.failures, code };
  } catch {
    return undefined;
  }
}

export function createMemoryAccountStore(clock: () => number = Date.now): AccountCredentialStore {
  const entries = new Map<string, { value: string; expiresAt: number }>();
  const get = (key: string) => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= clock()) entries.delete(key);
    return entries.get(key)?.value;
  };
  const set = (key: string, value: string, ttlMs: number) => entries.set(key, { value, expiresAt: clock() + Math.max(1, ttlMs) });
  return {
    kind: 'memory',
    read(name) {
      const sealed = get(accountKeys.credential(name));
      const backoff = parseBackoff(get(accountKeys.backoff(name)));
      return Promise.resolve({ ...(sealed ? { sealed } : {}), ...(backoff ? { backoff } : {}) });
    },
    write(name, sealed, ttlMs) {
      set(accountKeys.credential(name), sealed, ttlMs);
      entries.delete(accountKeys.backoff(name));
      return Promise.resolve();
    },
    replace(name, expected, next) {
      const key = accountKeys.credential(name);
      const entry = entries.get(key);
      if (get(key) !== expected || !entry) return Promise.resolve(false);
      entries.set(key, { value: next, expiresAt: entry.expiresAt });
      return Promise.resolve(true);
    },
    discard(name, expected) {
      const key = accountKeys.credential(name);
      if (get(key) !== expected) return Promise.resolve(false);
      entries.delete(key);
      return Promise.resolve(true);
    },
    recordFailure(name, backoff, ttlMs) {
      set(accountKeys.backoff(name), JSON.stringify(backoff), ttlMs);
      return Promise.resolve();
    },
  };
}

const REPLACE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl) else redis.call('SET', KEYS[1], ARGV[2]) end
return 1
`;

const DISCARD = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
`;

interface AccountCommands {
  sgwAccountReplace(key: string, expected: string, next: string): Promise<number>;
  sgwAccountDiscard(key: string, expected: string): Promise<number>;
}

export function createRedisAccountStore(redis: RedisClient): AccountCredentialStore {
  if (!('sgwAccountReplace' in redis)) {
    redis.defineCommand('sgwAccountReplace', { numberOfKeys: 1, lua: REPLACE });
    redis.defineCommand('sgwAccountDiscard', { numberOfKeys: 1, lua: DISCARD });
  }
  const commands = redis as unknown as RedisClient & AccountCommands;
  return {
    kind: 'redis',
    async read(name) {
      const [sealed, backoffText] = await commands.mget(accountKeys.credential(name), accountKeys.backoff(name));
      const backoff = parseBackoff(backoffText);
      return { ...(sealed ? { sealed } : {}), ...(backoff ? { backoff } : {}) };
    },
    async write(name, sealed, ttlMs) {
      const results = await commands
        .multi()
        .set(accountKeys.credential(name), sealed, 'PX', Math.max(1, Math.round(ttlMs)))
        .del(accountKeys.backoff(name))
        .exec();
      const failure = results?.find(([error]) => error)?.[0];
      if (!results || failure) throw failure ?? new Error('credential write aborted');
    },
    async replace(name, expected, next) {
      return (await commands.sgwAccountReplace(accountKeys.credential(name), expected, next)) === 1;
    },
    async discard(name, expected) {
      return (await commands.sgwAccountDiscard(accountKeys.credential(name), expected)) === 1;
    },
    async recordFailure(name, backoff, ttlMs) {
      await commands.set(accountKeys.backoff(name), JSON.stringify(backoff), 'PX', Math.max(1, Math.round(ttlMs)));
    },
  };
}
