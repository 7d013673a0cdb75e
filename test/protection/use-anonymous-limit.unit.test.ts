/**
 * useAnonymousLimit, in process, behind the client address, the executed operation and useIdentity
 * as in the gateway, on memory counters with a clock the test moves: RATE_LIMIT_ANONYMOUS counts
 * the root fields of operations without an identity per address group (an IPv4 address, an IPv6
 * /64), an operation whole or not at all, leaves documents of `login` alone to the login limits,
 * and never counts a signed-in caller.
 */
import { createSchema } from 'graphql-yoga';
import { beforeEach, describe, expect, it } from 'vitest';
import { useErrorMapping } from '../../src/http/use-error-mapping';
import { useExecutedOperation } from '../../src/request/executed';
import { useIdentity } from '../../src/identity/use-identity';
import { useClientAddress } from '../../src/protection/client-address';
import { createMemoryRateLimitStore, type RateLimitStore } from '../../src/protection/rate-limiter';
import { useAnonymousLimit } from '../../src/protection/use-anonymous-limit';
import { browserSessionStrategy } from '../../src/session/session-identity';
import { browserSessions, specKeys, specUpstreams } from '../support/identities';
import { fromAddress, yogaWith } from '../support/yoga';

const WINDOW = 60_000;
const LIMIT = 2;

let now = 0;
beforeEach(() => {
  now = 1_000 * WINDOW;
});

function pipeline() {
  const sessions = browserSessions();
  const { log, metrics } = sessions;
  const ran: string[] = [];
  const field = (name: string) => () => (ran.push(name), name);
  const schema = createSchema({
    typeDefs: 'type Query { session: String! hello: String! } type Mutation { login: String! confirmRegistration: String! }',
    resolvers: { Query: { session: field('session'), hello: field('hello') }, Mutation: { login: field('login'), confirmRegistration: field('confirmRegistration') } },
  });
  // The store's calls, counted: one per counted operation.
  const memory = createMemoryRateLimitStore(() => now);
  const storeCalls = { count: 0 };
  const counters: RateLimitStore = { ...memory, hit: (...args) => (storeCalls.count++, memory.hit(...args)) };
  const state = sessions.state;
  const server = yogaWith([
    useClientAddress({ ...state, trustProxy: 0 }),
    useExecutedOperation(state),
    useIdentity({ ...state, strategies: [browserSessionStrategy(sessions.dependencies)], production: true, defaultUpstream: () => specUpstreams.sandbox }),
    useAnonymousLimit({ ...state, limit: { max: LIMIT, windowMs: WINDOW }, counters, log, metrics, names: specKeys }),
    useErrorMapping({ ...state, log, metrics }),
  ], { schema });
  const from = (address: string, query = '{ session }', headers: Record<string, string> = {}) => server.graphql(query, { serverContext: fromAddress(address), headers });
  return { from, ran, sessions, storeCalls, server };
}

describe('useAnonymousLimit', () => {
  it('admits an address\'s anonymous operations up to the limit, then RATE_LIMITED (429, Retry-After) before they run', async () => {
    const { from, ran, sessions } = pipeline();
    expect((await from('203.0.113.5')).codes).toEqual([]);
    expect((await from('203.0.113.5', 'mutation { confirmRegistration }')).codes).toEqual([]);
    const refused = await from('203.0.113.5');
    expect([refused.status, refused.codes, refused.headers.get('retry-after')]).toEqual([429, ['RATE_LIMITED'], expect.stringMatching(/^\d+$/)]);
    expect(ran).toEqual(['session', 'confirmRegistration']);
    expect(sessions.events('request.rate-limited')).toEqual([expect.objectContaining({ limit: 'anonymous' })]);
  });

  it('counts every root field, aliases included', async () => {
    const { from } = pipeline();
    expect((await from('203.0.113.5', '{ a: session b: session }')).codes).toEqual([]);
    expect((await from('203.0.113.5')).codes).toEqual(['RATE_LIMITED']);
  });

  it('refuses an operation heavier than what is left whole, counting none of its fields (as the drop-in front counts)', async () => {
    const { from, ran } = pipeline();
    expect((await from('203.0.113.5')).codes).toEqual([]);
    expect((await from('203.0.113.5', '{ a: session b: session }')).codes).toEqual(['RATE_LIMITED']);
    expect((await from('203.0.113.5')).codes).toEqual([]);
    expect(ran).toEqual(['session', 'session']);
  });

  it('admits the address again once its Retry-After has passed on the clock', async () => {
    const { from } = pipeline();
    await from('203.0.113.5');
    await from('203.0.113.5');
    const retryAfter = Number((await from('203.0.113.5')).headers.get('retry-after'));
    now += retryAfter * 1000 - 1_000;
    expect((await from('203.0.113.5')).codes).toEqual(['RATE_LIMITED']);
    now += 1_000;
    expect((await from('203.0.113.5')).codes).toEqual([]);
  });

  it('leaves documents of login alone (the login limits count them), but counts a login beside another field', async () => {
    const { from } = pipeline();
    for (let i = 0; i < LIMIT + 3; i++) {
      expect((await from('203.0.113.5', 'mutation { login }')).codes).toEqual([]);
      expect((await from('203.0.113.5', 'mutation { login __typename }')).codes).toEqual([]);
    }
    expect((await from('203.0.113.5', 'mutation { login confirmRegistration }')).codes).toEqual([]);
    expect((await from('203.0.113.5', 'mutation { login confirmRegistration }')).codes).toEqual(['RATE_LIMITED']);
  });

  it('counts per address group: one IPv4 address (IPv4-mapped alike), one IPv6 /64', async () => {
    const { from } = pipeline();
    await from('203.0.113.5');
    await from('::ffff:203.0.113.5');
    expect((await from('203.0.113.5')).codes).toEqual(['RATE_LIMITED']);
    expect((await from('203.0.113.6')).codes).toEqual([]);
    await from('2001:db8:0:1::1');
    await from('2001:db8:0:1:ffff::2');
    expect((await from('2001:db8:0:1::3')).codes).toEqual(['RATE_LIMITED']);
    expect((await from('2001:db8:0:2::1')).codes).toEqual([]);
  });

  it('never counts a signed-in caller, whose own limit applies', async () => {
    const { from, sessions } = pipeline();
    const { cookie } = await sessions.signIn('ada@example.com');
    for (let i = 0; i < LIMIT + 3; i++) expect((await from('203.0.113.5', '{ hello }', { cookie })).codes).toEqual([]);
    expect((await from('203.0.113.5')).codes).toEqual([]);
  });

  it('refuses an operation of more root fields than the whole window admits at once, without a store call per field', async () => {
    const { from, ran, storeCalls } = pipeline();
    const refused = await from('203.0.113.5', `{ ${Array.from({ length: 200 }, (_, i) => `a${i}: session`).join(' ')} }`);
    expect([refused.status, refused.codes]).toEqual([429, ['RATE_LIMITED']]);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(WINDOW / 1000);
    expect([ran, storeCalls.count]).toEqual([[], 0]);
    expect((await from('203.0.113.5')).codes).toEqual([]);
  });

  it('counts only the executed operation, never a sibling operation\'s fields', async () => {
    const { server, storeCalls } = pipeline();
    const siblings = `query Small { session } query Large { ${Array.from({ length: 50 }, (_, i) => `a${i}: hello`).join(' ')} }`;
    const answer = await server.graphql(siblings, { operationName: 'Small', serverContext: fromAddress('203.0.113.5') });
    expect(answer.codes).toEqual([]);
    expect(storeCalls.count).toBe(1);
  });
});
