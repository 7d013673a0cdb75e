/**
 * useRateLimits, in process, after the executed operation and useIdentity as in the gateway, on
 * counters over memory and over a real Redis (TEST_REDIS_URL) with a clock the test moves:
 * RATE_LIMIT_SESSION counts root fields (aliases included) per identity, never a service account
 * (which has its own limit) nor an anonymous caller (useAnonymousLimit's). rate-limiter.in-process
 * covers the counters' window arithmetic.
 */
import { randomBytes } from 'node:crypto';
import { createSchema } from 'graphql-yoga';
import { Redis } from 'ioredis';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { ServiceAccountIdentity } from '../../src/credentials/service-account-identity';
import { useErrorMapping } from '../../src/http/use-error-mapping';
import { useExecutedOperation } from '../../src/request/executed';
import type { IdentityStrategy } from '../../src/identity/strategy';
import { useIdentity } from '../../src/identity/use-identity';
import { createMemoryRateLimitStore, createRedisRateLimitStore, type RateLimitStore } from '../../src/protection/rate-limiter';
import { useRateLimits } from '../../src/protection/use-rate-limits';
import { browserSessionStrategy } from '../../src/session/session-identity';
import { browserSessions, serviceAccountsFor, specUpstreams } from '../support/identities';
import { yogaWith } from '../support/yoga';
import { TEST_REDIS_URL as REDIS_URL } from '../support/gateway';

// A real Redis, never a mock: without one the first command fails, and so do these tests.
const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
afterAll(async () => {
  await redis.quit();
});

const WINDOW = 60_000;
const LIMIT = 3;

/**
 * A service account's identity for requests marked `x-spec-account`, with a credential of its own
 * (no sign-in: the session limit only asks the identity for its counter).
 */
function serviceAccountByHeader(dependencies: ConstructorParameters<typeof ServiceAccountIdentity>[0]): IdentityStrategy {
  const account = { name: 'batch', apiKeySha256: Buffer.alloc(32), email: 'batch@example.com', password: 'unused', environment: 'sandbox', requestsPerMinute: 1_000 } as const;
  const lease = { credential: { accessToken: 'batch-token', client: 'batch-client', uid: account.email }, sealed: 'sealed' };
  return {
    identify: (request) => (request.headers.has('x-spec-account') ? Promise.resolve({ identity: new ServiceAccountIdentity(dependencies, account, lease) }) : undefined),
    presented: (request) => (request.headers.has('x-spec-account') ? { queryTexts: true } : undefined),
  };
}

const implementations: readonly { readonly name: string; readonly open: (clock: () => number) => RateLimitStore }[] = [
  { name: 'memory', open: (clock) => createMemoryRateLimitStore(clock) },
  { name: 'redis', open: (clock) => createRedisRateLimitStore(redis, clock) },
];

for (const { name, open } of implementations) describe(`useRateLimits on ${name} counters`, () => {
  let now = 0;
  beforeEach(() => {
    // The start of a window, far from any earlier run's.
    now = (Math.floor(Date.now() / WINDOW) + 1 + Math.floor(Math.random() * 1e6)) * WINDOW;
  });

  function pipeline() {
    const sessions = browserSessions();
    const { log, metrics } = sessions;
    let ran = 0;
    const schema = createSchema({ typeDefs: 'type Query { hello: String! session: String! }', resolvers: { Query: { hello: () => (ran++, 'world'), session: () => (ran++, 'none') } } });
    const accounts = { serviceAccounts: serviceAccountsFor([], { log, metrics }), rateLimits: createMemoryRateLimitStore(), upstreams: specUpstreams, log, metrics };
    const state = sessions.state;
    const server = yogaWith([
      useExecutedOperation(state),
      useIdentity({ ...state, strategies: [browserSessionStrategy(sessions.dependencies), serviceAccountByHeader(accounts)], production: true, defaultUpstream: () => specUpstreams.sandbox }),
      useRateLimits({ ...state, limit: { max: LIMIT, windowMs: WINDOW }, counters: open(() => now), log, metrics }),
      useErrorMapping({ ...state, log, metrics }),
    ], { schema });
    const signIn = async () => (await sessions.signIn(`${randomBytes(6).toString('hex')}@example.com`)).cookie;
    return { server, sessions, signIn, ran: () => ran };
  }

  it('weighs an operation by its root fields, aliases included, and refuses past the limit with RATE_LIMITED and Retry-After', async () => {
    const { server, signIn, ran, sessions } = pipeline();
    const headers = { cookie: await signIn() };
    expect((await server.graphql('{ a: hello b: hello }', { headers })).codes).toEqual([]);
    expect((await server.graphql('{ hello }', { headers })).codes).toEqual([]);
    const refused = await server.graphql('{ hello }', { headers });
    expect([refused.status, refused.codes, refused.headers.get('retry-after')]).toEqual([429, ['RATE_LIMITED'], '80']);
    expect(ran()).toBe(3);
    expect(sessions.events('request.rate-limited')).toEqual([expect.objectContaining({ limit: 'session' })]);
  });

  it('refuses an operation heavier than what is left, though a lighter one still fits', async () => {
    const { server, signIn } = pipeline();
    const headers = { cookie: await signIn() };
    expect((await server.graphql('{ a: hello b: hello c: hello d: hello }', { headers })).codes).toEqual(['RATE_LIMITED']);
    expect((await server.graphql('{ a: hello b: hello }', { headers })).codes).toEqual([]);
    expect((await server.graphql('{ a: hello b: hello }', { headers })).codes).toEqual(['RATE_LIMITED']);
    expect((await server.graphql('{ hello }', { headers })).codes).toEqual([]);
  });

  it('admits the identity again once its Retry-After has passed on the clock, not a second before', async () => {
    const { server, signIn } = pipeline();
    const headers = { cookie: await signIn() };
    await server.graphql('{ a: hello b: hello c: hello }', { headers });
    const retryAfter = Number((await server.graphql('{ hello }', { headers })).headers.get('retry-after'));
    now += retryAfter * 1000 - 1_000;
    expect((await server.graphql('{ hello }', { headers })).codes).toEqual(['RATE_LIMITED']);
    now += 1_000;
    expect((await server.graphql('{ hello }', { headers })).codes).toEqual([]);
  });

  it('counts each identity apart', async () => {
    const { server, signIn } = pipeline();
    const [first, second] = [{ cookie: await signIn() }, { cookie: await signIn() }];
    await server.graphql('{ a: hello b: hello c: hello }', { headers: first });
    expect((await server.graphql('{ hello }', { headers: first })).codes).toEqual(['RATE_LIMITED']);
    expect((await server.graphql('{ a: hello b: hello c: hello }', { headers: second })).codes).toEqual([]);
  });

  it('never counts a service account (its requestsPerMinute applies) nor an anonymous caller', async () => {
    const { server, ran } = pipeline();
    for (let i = 0; i < LIMIT + 2; i++) expect((await server.graphql('{ a: hello b: hello }', { headers: { 'x-spec-account': '1' } })).codes).toEqual([]);
    for (let i = 0; i < LIMIT + 2; i++) expect((await server.graphql('{ a: session b: session }')).codes).toEqual([]);
    expect(ran()).toBe(4 * (LIMIT + 2));
  });
});
