/**
 * The login limits and the counters under them, in-process with a clock the test moves, against
 * both store implementations (memory, and a real Redis): failures per address and e-mail cleared
 * by a success, failed attempts per address (IPv6 by /64), the per-account back-off, weighted hits.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createDerivedKeys } from '../../src/derived-keys';
import type { GatewayError } from '../../src/errors';
import { createLogEvents } from '../../src/observability/log-events';
import { createLogger } from '../../src/observability/logger';
import { createMetrics } from '../../src/observability/metrics';
import { createStoreHealth } from '../../src/observability/store-health';
import { createMemoryAccountBackoff, createRedisAccountBackoff, type AccountBackoffStore } from '../../src/protection/account-backoff';
import { addressGroup } from '../../src/protection/client-address';
import { createLoginLimits, type LoginAttempt, type LoginLimits } from '../../src/protection/login-limits';
import { createMemoryRateLimitStore, createRedisRateLimitStore, type RateLimitStore } from '../../src/protection/rate-limiter';
import { TEST_REDIS_URL as REDIS_URL } from '../support/gateway';

// A real Redis, never a mock. Without one, the first command fails and so do the tests.
const redis = new Redis(REDIS_URL);
afterAll(async () => {
  await redis.quit();
});

const MINUTE = 60_000;
const log = createLogEvents(createLogger({ level: 'silent' }));

interface Stores {
  readonly counters: RateLimitStore;
  readonly accounts: AccountBackoffStore;
}

const implementations: readonly { readonly name: string; readonly open: (clock: () => number) => Stores }[] = [
  { name: 'memory', open: (clock) => ({ counters: createMemoryRateLimitStore(clock), accounts: createMemoryAccountBackoff(clock) }) },
  { name: 'redis', open: (clock) => ({ counters: createRedisRateLimitStore(redis, clock), accounts: createRedisAccountBackoff(redis, clock) }) },
];

const retryAfter = (error: GatewayError | undefined) => error?.extensions.http?.headers?.['retry-after'];

for (const { name, open } of implementations) describe(`login limits on the ${name} store`, () => {
  // Far from any earlier run's keys in Redis: a fresh point in time, unique e-mails and addresses.
  let now = 0;
  let limits: LoginLimits;
  let stores: Stores;
  const clock = () => now;
  const email = () => `${randomUUID()}@example.com`;
  const address = () => `10.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;
  const attempt = (who: string, mail: string): LoginAttempt => ({ address: who, email: mail, environment: 'sandbox' });

  beforeEach(() => {
    now = Date.now() + Math.floor(Math.random() * 1e9);
    stores = open(clock);
    limits = createLoginLimits({
      ...stores,
      limits: { login: { max: 5, windowMs: 15 * MINUTE }, loginPerAddress: { max: 30, windowMs: MINUTE }, loginPerAccount: { max: 10, windowMs: 15 * MINUTE } },
      health: createStoreHealth('sessions', log),
      log,
      metrics: createMetrics({ processMetrics: false }),
      names: createDerivedKeys(randomBytes(32)),
    });
  });

  it('admits a sixth correct login within fifteen minutes: successes do not add up (regression)', async () => {
    const who = attempt(address(), email());
    for (let login = 0; login < 8; login++) {
      expect(await limits.admit(who)).toBeUndefined();
      await limits.succeeded(who);
      now += 10_000;
    }
  });

  it('refuses the sixth attempt after five failures from one address, and the e-mail matches however it is typed', async () => {
    const who = address();
    const mail = email();
    for (let failure = 0; failure < 5; failure++) expect(await limits.admit(attempt(who, failure % 2 ? mail.toUpperCase() : ` ${mail}`))).toBeUndefined();
    const refused = await limits.admit(attempt(who, mail));
    expect(refused?.code).toBe('RATE_LIMITED');
    expect(Number(retryAfter(refused))).toBeGreaterThan(0);
    // Another address is another counter (below the account's limit).
    expect(await limits.admit(attempt(address(), mail))).toBeUndefined();
  });

  it('admits a hundred successful sign-ins a minute from one address: a batch job signing in once per step is not refused (regression)', async () => {
    const batch = address();
    const accounts = [email(), email(), email()];
    for (let login = 0; login < 100; login++) {
      const who = attempt(batch, accounts[login % accounts.length] ?? '');
      expect(await limits.admit(who)).toBeUndefined();
      await limits.succeeded(who);
    }
  });

  it('counts every failure of an address that signs in to an account of its own between them', async () => {
    const attacker = address();
    const own = attempt(attacker, email());
    for (let guess = 0; guess < 29; guess++) {
      expect(await limits.admit(attempt(attacker, email()))).toBeUndefined();
      expect(await limits.admit(own)).toBeUndefined();
      await limits.succeeded(own);
    }
    expect(await limits.admit(attempt(attacker, email()))).toBeUndefined();
    // Thirty failures: the thirty-first attempt is refused, the right password of its own account too.
    expect((await limits.admit(attempt(attacker, email())))?.code).toBe('RATE_LIMITED');
    expect((await limits.admit(own))?.code).toBe('RATE_LIMITED');
  });

  it('counts failed attempts per address, an IPv6 /64 as one address and an IPv4-mapped address as the IPv4 one', async () => {
    for (let index = 0; index < 15; index++) expect(await limits.admit(attempt(`2001:db8:1:2::${index.toString(16)}`, email()))).toBeUndefined();
    for (let index = 0; index < 15; index++) expect(await limits.admit(attempt(`2001:db8:1:2:${index + 1}:ffff:abcd:1`, email()))).toBeUndefined();
    expect((await limits.admit(attempt('2001:db8:1:2:dead:beef::1', email())))?.code).toBe('RATE_LIMITED');
    expect(await limits.admit(attempt('2001:db8:1:3::1', email()))).toBeUndefined();

    const v4 = address();
    for (let index = 0; index < 30; index++) expect(await limits.admit(attempt(index % 2 ? v4 : `::ffff:${v4}`, email()))).toBeUndefined();
    expect((await limits.admit(attempt(v4, email())))?.code).toBe('RATE_LIMITED');
  });

  it('backs off one account from any address: waits of 1, 2, 4 ... seconds up to 15 minutes, one attempt after each, cleared by a success', async () => {
    const mail = email();
    for (let failure = 0; failure < 10; failure++) expect(await limits.admit(attempt(address(), mail))).toBeUndefined();
    const waits: string[] = [];
    for (let round = 0; round < 12; round++) {
      const refused = await limits.admit(attempt(address(), mail));
      expect(refused?.code).toBe('RATE_LIMITED');
      waits.push(retryAfter(refused) ?? '');
      // A refusal does not lengthen the wait.
      now += 500;
      expect(retryAfter(await limits.admit(attempt(address(), mail)))).toBe(String(Math.max(1, Math.ceil((Number(waits[round]) * 1000 - 500) / 1000))));
      now += Number(waits[round]) * 1000 - 500;
      // The wait is over: one attempt, which fails and starts the next.
      expect(await limits.admit(attempt(address(), mail))).toBeUndefined();
    }
    expect(waits).toEqual(['1', '2', '4', '8', '16', '32', '64', '128', '256', '512', '900', '900']);

    now += 900_000;
    const owner = attempt(address(), mail);
    expect(await limits.admit(owner)).toBeUndefined();
    await limits.succeeded(owner);
    expect(await limits.admit(attempt(address(), mail))).toBeUndefined();
  });

  it('keeps an address the account signed in from out of the back-off: an attacker taking every admitted attempt cannot lock its owner out (regression)', async () => {
    const mail = email();
    const home = address();
    expect(await limits.admit(attempt(home, mail))).toBeUndefined();
    await limits.succeeded(attempt(home, mail));
    // The attacker spends the limit, then takes the one attempt admitted after each wait.
    for (let failure = 0; failure < 10; failure++) expect(await limits.admit(attempt(address(), mail))).toBeUndefined();
    for (let round = 0; round < 5; round++) {
      const refused = await limits.admit(attempt(address(), mail));
      expect(refused?.code).toBe('RATE_LIMITED');
      // The owner, at home, is not refused by the account's back-off (the upstream then says no).
      expect(await limits.admit(attempt(home, mail))).toBeUndefined();
      now += Number(retryAfter(refused)) * 1000;
      expect(await limits.admit(attempt(address(), mail))).toBeUndefined();
    }
    // At home the owner signs in, which clears the back-off for everyone.
    await limits.succeeded(attempt(home, mail));
    expect(await limits.admit(attempt(address(), mail))).toBeUndefined();
  });

  it('forgets an account a window after its last wait: never a permanent lock', async () => {
    const mail = email();
    for (let failure = 0; failure < 11; failure++) {
      expect(await limits.admit(attempt(address(), mail))).toBeUndefined();
      now += 60_000;
    }
    now += 15 * MINUTE + 2 * 60_000;
    // A fresh count: ten attempts before the first wait.
    for (let failure = 0; failure < 9; failure++) expect(await limits.admit(attempt(address(), mail))).toBeUndefined();
    expect(await limits.admit(attempt(address(), mail))).toBeUndefined();
    expect((await limits.admit(attempt(address(), mail)))?.code).toBe('RATE_LIMITED');
  });

  it('weighs hits: an operation of three root fields counts three', async () => {
    const key = `test:${randomUUID()}`;
    expect((await stores.counters.hit(key, 8, MINUTE, 3)).allowed).toBe(true);
    expect((await stores.counters.hit(key, 8, MINUTE, 3)).allowed).toBe(true);
    expect((await stores.counters.hit(key, 8, MINUTE, 3)).allowed).toBe(false);
    expect((await stores.counters.hit(key, 8, MINUTE, 2)).allowed).toBe(true);
    const refused = await stores.counters.hit(key, 8, MINUTE, 1);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterMs).toBeGreaterThanOrEqual(1_000);
  });
});

describe('addressGroup', () => {
  it('keeps IPv4 addresses, maps IPv4-mapped IPv6 to IPv4, and groups IPv6 by /64', () => {
    expect(addressGroup('192.0.2.7')).toBe('192.0.2.7');
    expect(addressGroup('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(addressGroup('::FFFF:c000:0207')).toBe('192.0.2.7');
    expect(addressGroup('2001:db8:a:b:1:2:3:4')).toBe('2001:db8:a:b::/64');
    expect(addressGroup('2001:DB8:A:B::9')).toBe('2001:db8:a:b::/64');
    expect(addressGroup('[2001:db8:a:b::9]')).toBe('2001:db8:a:b::/64');
    expect(addressGroup('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressGroup('::1')).toBe('0:0:0:0::/64');
    expect(addressGroup('unknown')).toBe('unknown');
  });
});
