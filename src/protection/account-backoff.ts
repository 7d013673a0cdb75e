/**
 * The per-account login limit (RATE_LIMIT_LOGIN_ACCOUNT): attempts on one e-mail from any address,
 * with a back-off instead of a lock once over the limit. State per account, in one key:
 *
 * - Every admitted attempt counts (before the upstream answers, so concurrent attempts on several
 *   replicas cannot slip past the limit together); a successful login clears the key.
 * - The `max`-th attempt within `windowMs` of the first, and each one admitted after it, sets a
 *   wait before the next attempt: 1 s, then 2, 4, 8 ... up to `capMs` (15 min). Refusals during a
 *   wait do not lengthen it: otherwise a steady stream of refused guesses would keep the account's
 *   owner out for good. Once a wait is over exactly one attempt is admitted (it starts the next
 *   wait); if that is the right password, the login succeeds and clears everything.
 * - Every write sets a TTL: the key goes `windowMs` after the first attempt, or, once waits began,
 *   `windowMs` after the end of the last wait. Nothing here is permanent.
 * - Addresses the account signed in from successfully are remembered (`learn`, `knows`): the
 *   caller leaves them out of the back-off, or one attacker who takes the one attempt after each
 *   wait (Retry-After tells when) keeps the owner out for as long as they keep guessing.
 */
import type { RedisClient } from '../redis';
import type { RateDecision } from './rate-limiter';

export interface AccountBackoffStore {
  /** Admits and counts one attempt under `key`, or refuses it with the wait left. */
  attempt(key: string, max: number, windowMs: number, capMs: number): Promise<RateDecision>;
  /** A successful login: forgets the account's attempts and wait. */
  clear(key: string): Promise<void>;
  /** Remembers `key` (an account and an address it signed in from) for `ttlMs`. */
  learn(key: string, ttlMs: number): Promise<void>;
  /** Whether `key` was learnt and has not expired. */
  knows(key: string): Promise<boolean>;
}

interface BackoffState {
  attempts: number;
  level: number;
  until: number;
  expiresAt: number;
}

/** The next state after one admitted attempt at `now` (the same rule as the Lua script below). */
function admitted(state: BackoffState, now: number, max: number, windowMs: number, capMs: number): BackoffState {
  const attempts = state.attempts + 1;
  if (attempts < max) return { ...state, attempts, expiresAt: state.attempts === 0 ? now + windowMs : state.expiresAt };
  const wait = Math.min(1_000 * 2 ** state.level, capMs);
  return { attempts, level: state.level + 1, until: now + wait, expiresAt: now + wait + windowMs };
}

const refusal = (until: number, now: number): RateDecision => ({ allowed: false, retryAfterMs: Math.max(1_000, until - now) });

export function createMemoryAccountBackoff(clock: () => number = Date.now): AccountBackoffStore {
  const states = new Map<string, BackoffState>();
  /** Learnt keys and their end, bounded: the oldest learnt go first. */
  const known = new Map<string, number>();
  const MAX_KNOWN = 100_000;
  let lastSweep = 0;
  return {
    attempt(key, max, windowMs, capMs) {
      const now = clock();
      if (now - lastSweep > windowMs) {
        lastSweep = now;
        for (const [name, state] of states) if (state.expiresAt <= now) states.delete(name);
      }
      const found = states.get(key);
      const state = found && found.expiresAt > now ? found : { attempts: 0, level: 0, until: 0, expiresAt: 0 };
      if (now < state.until) return Promise.resolve(refusal(state.until, now));
      states.set(key, admitted(state, now, max, windowMs, capMs));
      return Promise.resolve({ allowed: true, retryAfterMs: 0 });
    },
    clear(key) {
      states.delete(key);
      return Promise.resolve();
    },
    learn(key, ttlMs) {
      known.delete(key);
      known.set(key, clock() + ttlMs);
      if (known.size > MAX_KNOWN) known.delete(known.keys().next().value ?? '');
      return Promise.resolve();
    },
    knows(key) {
      const end = known.get(key);
      return Promise.resolve(end !== undefined && end > clock());
    },
  };
}

// KEYS: the account's hash. ARGV: now, max, window ms, cap ms. Returns {1} or {0, until}.
const ATTEMPT = `
local now = tonumber(ARGV[1])
local max = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local state = redis.call('HMGET', KEYS[1], 'attempts', 'level', 'until', 'expires')
local attempts = tonumber(state[1] or '0')
local level = tonumber(state[2] or '0')
local untilAt = tonumber(state[3] or '0')
local expires = tonumber(state[4] or '0')
-- The end is also kept in the hash, by the gateway's clock (as the memory store decides).
if expires <= now then
  attempts = 0
  level = 0
  untilAt = 0
end
if now < untilAt then return {0, string.format('%d', untilAt)} end
attempts = attempts + 1
if attempts < max then
  if attempts == 1 then expires = now + window end
  redis.call('HSET', KEYS[1], 'attempts', attempts, 'level', level, 'until', 0, 'expires', string.format('%d', expires))
  redis.call('PEXPIRE', KEYS[1], math.max(1, expires - now))
  return {1, '0'}
end
local wait = math.min(1000 * math.pow(2, level), tonumber(ARGV[4]))
redis.call('HSET', KEYS[1], 'attempts', attempts, 'level', level + 1, 'until', string.format('%d', now + wait), 'expires', string.format('%d', now + wait + window))
redis.call('PEXPIRE', KEYS[1], wait + window)
return {1, '0'}
`;

interface BackoffCommands {
  sgwLoginAccountAttempt(key: string, now: number, max: number, windowMs: number, capMs: number): Promise<[number, string]>;
}

/** `sgw:rate:{login-account:<HMAC>}`: one key per account (the caller names it by an HMAC of the e-mail, login-limits.ts). */
const stateKey = (key: string) => `sgw:rate:{${key}}`;

export function createRedisAccountBackoff(redis: RedisClient, clock: () => number = Date.now): AccountBackoffStore {
  if (!('sgwLoginAccountAttempt' in redis)) redis.defineCommand('sgwLoginAccountAttempt', { numberOfKeys: 1, lua: ATTEMPT });
  const commands = redis as unknown as RedisClient & BackoffCommands;
  return {
    async attempt(key, max, windowMs, capMs) {
      const now = clock();
      const [allowed, until] = await commands.sgwLoginAccountAttempt(stateKey(key), now, max, windowMs, capMs);
      return allowed === 1 ? { allowed: true, retryAfterMs: 0 } : refusal(Number(until), now);
    },
    async clear(key) {
      await redis.del(stateKey(key));
    },
    async learn(key, ttlMs) {
      await redis.set(stateKey(key), '1', 'PX', ttlMs);
    },
    async knows(key) {
      return (await redis.exists(stateKey(key))) === 1;
    },
  };
}
