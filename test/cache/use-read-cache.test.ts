/**
 * useReadCache and useCacheInvalidation together, in process, in the gateway's order (the executed
 * operation, useIdentity with the browser-session strategy over a memory session store, then
 * invalidation before the read cache), on the memory cache store and on a real Redis
 * (TEST_REDIS_URL), with a clock the test moves. Resolvers play the upstream and count its calls:
 * reads are cached per identity and never shared, a mutation drops its identity's reads, and
 * the upstream credential's expiry bounds what is kept. statement-reads.test.ts runs the cache
 * through a gateway on the emulator.
 */
import { randomBytes } from 'node:crypto';
import { createSchema, type Plugin } from 'graphql-yoga';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createMemoryCacheStore } from '../../src/cache/memory-cache-store';
import { createRedisCacheStore } from '../../src/cache/redis-cache-store';
import { identityScope } from '../../src/cache/scope';
import { cacheKeys, type CacheStore } from '../../src/cache/cache-store';
import { useCacheInvalidation } from '../../src/cache/use-cache-invalidation';
import { createReadCache } from '../../src/cache/read-cache';
import { useReadCache } from '../../src/cache/use-read-cache';
import { gatewayError } from '../../src/errors';
import { useErrorMapping } from '../../src/http/use-error-mapping';
import { useExecutedOperation } from '../../src/request/executed';
import { useIdentity, type IdentityContext } from '../../src/identity/use-identity';
import { createRedisClient, waitForReady, type RedisClient } from '../../src/redis';
import { parseRedisTarget } from '../../src/config/redis-url';
import { browserSessionStrategy } from '../../src/session/session-identity';
import { browserSessions, specUpstreams } from '../support/identities';
import { yogaWith } from '../support/yoga';
import { TEST_REDIS_URL as REDIS_URL } from '../support/gateway';

const connections: RedisClient[] = [];
afterAll(() => {
  for (const connection of connections) connection.disconnect();
});

/**
 * The cache store, with the TTL of each write it was asked for, and its writes in flight: the
 * response cache writes after the answer has gone (starting once the event loop has turned, so
 * that the answer is written first), and a test's next request waits for them.
 */
type Recorded = { store: CacheStore; ttls: number[]; lookups: () => number; written: () => Promise<unknown>; hold: () => () => void; redis?: RedisClient };
function recording(store: CacheStore, redis?: RedisClient): Recorded {
  const ttls: number[] = [];
  const writes: Promise<void>[] = [];
  /** While set, writes wait for it: a write that arrives late, after whatever the test does meanwhile. */
  let gate: Promise<void> | undefined;
  const hold = () => {
    let release = () => {};
    gate = new Promise((resolve) => (release = resolve));
    return () => {
      gate = undefined;
      release();
    };
  };
  const putMembers: CacheStore['putMembers'] = (group, entries, ttlMs, generation, max) => {
    ttls.push(ttlMs);
    const held = gate;
    const write = held ? held.then(() => store.putMembers(group, entries, ttlMs, generation, max)) : store.putMembers(group, entries, ttlMs, generation, max);
    writes.push(write);
    return write;
  };
  const written = () => new Promise((resolve) => setImmediate(resolve)).then(() => Promise.all(writes));
  let lookups = 0;
  const getMembers: CacheStore['getMembers'] = (group, ids) => (lookups++, store.getMembers(group, ids));
  return { store: { ...store, getMembers, putMembers }, ttls, lookups: () => lookups, written, hold, ...(redis ? { redis } : {}) };
}
const stores: readonly { readonly name: string; readonly open: () => Promise<Recorded> }[] = [
  { name: 'memory', open: () => Promise.resolve(recording(createMemoryCacheStore())) },
  {
    name: 'redis',
    open: async () => {
      const [redis, subscriber] = [createRedisClient({ target: parseRedisTarget(REDIS_URL) }), createRedisClient({ target: parseRedisTarget(REDIS_URL) })];
      connections.push(redis, subscriber);
      // As the gateway does before it serves (commands fail fast while it is not connected).
      expect(await waitForReady(redis, 3_000)).toBe(true);
      return recording(createRedisCacheStore({ redis, subscriber }), redis);
    },
  },
];

const TTL = 60_000;
const READ = '{ getStatements { nodes { otxId } } }';
const READ_NEC = '{ getF1099necStatements { nodes { otxId } } }';

for (const { name, open } of stores) describe(`the read cache on the ${name} store`, () => {
  async function pipeline() {
    let now = 1_900_000_000_000;
    const recorded = await open();
    const sessions = browserSessions({ clock: () => now });
    const { log, metrics } = sessions;
    const calls: string[] = [];
    const read = (field: string) => (_root: unknown, _args: unknown, { identity }: IdentityContext) => {
      calls.push(`${identity?.uid ?? ''} ${field}`);
      return { nodes: [{ otxId: `${identity?.uid ?? ''}-${calls.length}`, pdf: 'JVBERi0=' }] };
    };
    const write = (field: string) => (_root: unknown, _args: unknown, { identity }: IdentityContext) => (calls.push(`${identity?.uid ?? ''} ${field}`), 1);
    const schema = createSchema({
      typeDefs: /* GraphQL */ `
        type Query { getStatements: Page! getF1099necStatements: Page! hello: String! }
        type Page { nodes: [Statement!]! }
        type Statement { otxId: ID! pdf: String! }
        type Mutation { deleteStatements(otxIds: [String!]): Int! login: String! }
      `,
      resolvers: {
        Query: { getStatements: read('getStatements'), getF1099necStatements: read('getF1099necStatements'), hello: () => (calls.push('hello'), 'world') },
        Mutation: { deleteStatements: write('deleteStatements'), login: write('login') },
      },
    });
    const state = sessions.state;
    const readCache = useReadCache({ ...state, cache: createReadCache({ ...state, store: recorded.store, ttlMs: TTL, metrics, clock: () => now }) });
    // As in the gateway: the lookahead right after the identity, then the limits (one stands here:
    // it refuses requests marked `x-refuse`), then the invalidation and the cache.
    const refuse: Plugin = {
      onExecute({ args, setResultAndStopExecution }) {
        if ((args.contextValue as { request: Request }).request.headers.has('x-refuse')) setResultAndStopExecution({ errors: [gatewayError('RATE_LIMITED')] });
      },
    };
    const server = yogaWith([
      useExecutedOperation(state),
      useIdentity({ ...state, strategies: [browserSessionStrategy(sessions.dependencies)], production: true, defaultUpstream: () => specUpstreams.sandbox }),
      readCache.lookahead,
      refuse,
      useCacheInvalidation({ ...state, store: recorded.store }),
      readCache,
      useErrorMapping({ ...state, log, metrics }),
    ], { schema });
    /** A new upstream user's session (unique per run: RedisClient keeps entries between runs). */
    const user = async (options: { environment?: 'sandbox' | 'production'; uid?: string; expiresInMs?: number } = {}) => {
      const uid = options.uid ?? `${randomBytes(6).toString('hex')}@example.com`;
      const expiry = options.expiresInMs === undefined ? undefined : (now + options.expiresInMs) / 1000;
      const { cookie } = await sessions.signIn(uid, options.environment ?? 'sandbox', expiry === undefined ? {} : { expiry });
      const graphql = async (query: string, headers: Record<string, string> = {}) => {
        const answer = await server.graphql(query, { headers: { cookie, ...headers } });
        await recorded.written();
        return answer;
      };
      /** The answer alone, not waiting for the cache's writes. */
      const send = (query: string) => server.graphql(query, { headers: { cookie } });
      return { uid, graphql, send };
    };
    /** The upstream calls since the last look. */
    const upstream = () => calls.splice(0);
    return { user, upstream, recorded, advance: (ms: number) => (now += ms) };
  }

  it('answers a repeated read from the cache for the TTL, the same answer without the upstream', async () => {
    const { user, upstream, recorded } = await pipeline();
    const ada = await user();
    const first = await ada.graphql(READ);
    expect(upstream()).toEqual([`${ada.uid} getStatements`]);
    expect(recorded.ttls).toEqual([TTL]);
    expect((await ada.graphql(READ)).body).toEqual(first.body);
    expect(upstream()).toEqual([]);
  });

  it('answers a read from the cache with Age, the whole seconds since it was stored', async () => {
    const { user, advance } = await pipeline();
    const ada = await user();
    expect((await ada.graphql(READ)).headers.get('age')).toBeNull();
    advance(7_400);
    expect((await ada.graphql(READ)).headers.get('age')).toBe('7');
  });

  it('asks the upstream for a read sent with Cache-Control: no-cache, and later reads get that fresher answer', async () => {
    const { user, upstream, advance } = await pipeline();
    const ada = await user();
    await ada.graphql(READ);
    upstream();
    advance(5_000);
    const fresh = await ada.graphql(READ, { 'cache-control': 'no-cache' });
    expect(upstream()).toEqual([`${ada.uid} getStatements`]);
    expect(fresh.headers.get('age')).toBeNull();
    advance(2_000);
    const later = await ada.graphql(READ);
    expect(upstream()).toEqual([]);
    expect(later.body).toEqual(fresh.body);
    expect(later.headers.get('age')).toBe('2');
  });

  it('never shares reads between identities: other uids, the same uid on the other upstream', async () => {
    const { user, upstream } = await pipeline();
    const ada = await user();
    const bob = await user();
    const adaInProduction = await user({ uid: ada.uid, environment: 'production' });
    const answers = [await ada.graphql(READ), await bob.graphql(READ), await adaInProduction.graphql(READ)];
    expect(upstream()).toEqual([`${ada.uid} getStatements`, `${bob.uid} getStatements`, `${ada.uid} getStatements`]);
    expect(new Set(answers.map((answer) => JSON.stringify(answer.body))).size).toBe(3);
  });

  it('shares reads between the sessions of one upstream user (the scope is the identity, not the cookie)', async () => {
    const { user, upstream } = await pipeline();
    const ada = await user();
    const again = await user({ uid: ada.uid });
    await ada.graphql(READ);
    upstream();
    await again.graphql(READ);
    expect(upstream()).toEqual([]);
  });

  it('drops the identity\'s reads on a mutation (every read field), leaving other identities\' reads', async () => {
    const { user, upstream } = await pipeline();
    const [ada, bob] = [await user(), await user()];
    for (const query of [READ, READ_NEC]) await ada.graphql(query);
    await bob.graphql(READ);
    upstream();
    expect((await ada.graphql('mutation { deleteStatements(otxIds: ["x"]) }')).codes).toEqual([]);
    for (const query of [READ, READ_NEC]) await ada.graphql(query);
    await bob.graphql(READ);
    expect(upstream()).toEqual([`${ada.uid} deleteStatements`, `${ada.uid} getStatements`, `${ada.uid} getF1099necStatements`]);
  });

  it('keeps reads across a mutation that changes nothing cached (login)', async () => {
    const { user, upstream } = await pipeline();
    const ada = await user();
    await ada.graphql(READ);
    await ada.graphql('mutation { login }');
    upstream();
    await ada.graphql(READ);
    expect(upstream()).toEqual([]);
  });

  it('never keeps a read whose write arrives after a mutation invalidated its identity', async () => {
    const { user, upstream, recorded } = await pipeline();
    const ada = await user();
    const release = recorded.hold();
    await ada.send(READ);
    // The read's answer has gone; its write to the cache waits while the mutation drops the identity's reads.
    expect((await ada.send('mutation { deleteStatements(otxIds: ["x"]) }')).codes).toEqual([]);
    release();
    await recorded.written();
    upstream();
    await ada.graphql(READ);
    expect(upstream()).toEqual([`${ada.uid} getStatements`]);
  });

  it('never holds an identity\'s read behind the write of its other read; the same read waits for its own write and hits', async () => {
    const { user, upstream, recorded } = await pipeline();
    const ada = await user();
    const release = recorded.hold();
    await ada.send(READ);
    upstream();
    // The first read's write is held. The replica's wait for it is bounded by a timer: with the
    // timers stopped, a read that waited for it would never be answered (issue 44: every read of
    // one identity queued behind the others' writes).
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    try {
      const other = ada.send(READ_NEC);
      const same = ada.send(READ);
      const guard = new Promise<'held'>((resolve) => {
        const interval = setInterval(() => (clearInterval(interval), resolve('held')), 2_000);
      });
      const answered = await Promise.race([other.then(() => 'answered' as const), guard]);
      expect(answered).toBe('answered');
      expect(upstream()).toEqual([`${ada.uid} getF1099necStatements`]);
      // The same read waits for its own write (the timer stopped, only the write can end the wait)...
      expect(await Promise.race([same.then(() => 'answered' as const), new Promise<'waiting'>((resolve) => setImmediate(() => resolve('waiting')))])).toBe('waiting');
      release();
      await same;
      // ...and is then answered from it, without the upstream.
      expect(upstream()).toEqual([]);
    } finally {
      vi.useRealTimers();
      release();
    }
  });

  it('looks a read up once, early, and answers nothing from it when a later check refuses the request', async () => {
    const { user, upstream, recorded } = await pipeline();
    const ada = await user();
    await ada.graphql(READ);
    upstream();
    const before = recorded.lookups();
    const refused = await ada.graphql(READ, { 'x-refuse': '1' });
    expect(refused.codes).toEqual(['RATE_LIMITED']);
    expect(refused.body.data ?? null).toBeNull();
    const hit = await ada.graphql(READ);
    expect(hit.codes).toEqual([]);
    expect(upstream()).toEqual([]);
    // One lookup per read that wants the cache (the refused one's unused).
    expect(recorded.lookups() - before).toBe(2);
  });

  it('never caches a read that selects pdf, nor an operation beside a read', async () => {
    const { user, upstream } = await pipeline();
    const ada = await user();
    for (const query of ['{ getStatements { nodes { otxId pdf } } }', '{ getStatements { nodes { otxId } } hello }']) {
      await ada.graphql(query);
      await ada.graphql(query);
    }
    expect(upstream().filter((call) => call.endsWith('getStatements'))).toHaveLength(4);
  });

  it('keeps a read no longer than the upstream credential lives, and none once it has expired', async () => {
    const { user, upstream, recorded, advance } = await pipeline();
    const ada = await user({ expiresInMs: 5_000 });
    await ada.graphql(READ);
    expect(recorded.ttls).toEqual([5_000]);
    const { redis } = recorded;
    if (redis) {
      // The read's key in Redis: one member of the identity's group, expiring with the credential.
      const group = cacheKeys.reads(identityScope(specUpstreams.sandbox.cacheNamespace, ada.uid));
      const members = await redis.keys(`${group}:*`);
      expect(members).toHaveLength(1);
      expect(await redis.pttl(members[0] ?? '')).toBeGreaterThan(4_000);
      expect(await redis.pttl(members[0] ?? '')).toBeLessThanOrEqual(5_000);
    }
    advance(5_000);
    upstream();
    await ada.graphql(READ);
    await ada.graphql(READ);
    expect(upstream()).toEqual([`${ada.uid} getStatements`, `${ada.uid} getStatements`]);
  });
});
