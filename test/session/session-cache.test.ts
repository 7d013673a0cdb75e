/**
 * The in-process session cache (SESSION_CACHE_TTL, 1 s here): a burst costs one session-store
 * round trip, yet a logout on one replica takes effect on another at once (Redis pub/sub), not a
 * cache life later. Two gateway processes share one Redis; then the cache itself, two instances
 * on their own connections to the same Redis, as two replicas hold them.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createSessionCache, type SessionCache } from '../../src/session/session-cache';
import { DEMO_ACCOUNT } from '../support/emulator';
import { Browser, TEST_REDIS_URL, useGatewayReplicas, type TestGateway } from '../support/gateway';
import { scrape } from '../support/metrics';

const GREETING = '{ secretGreeting { response } }';
const LOOKUPS = 'statement_gateway_session_cache_lookups_total';
const { gateways } = useGatewayReplicas(2, { SESSION_CACHE_TTL: '1s' });
const replicaA = () => gateways[0]!;
const replicaB = () => gateways[1]!;

/** The same cookie on the other replica. */
function on(gateway: TestGateway, browser: Browser): Browser {
  const other = new Browser(gateway.url);
  other.cookie = browser.cookie;
  return other;
}

async function lookups(gateway: TestGateway): Promise<{ hit: number; miss: number }> {
  const metrics = await scrape(gateway.url);
  return { hit: metrics.sum(LOOKUPS, { result: 'hit' }), miss: metrics.sum(LOOKUPS, { result: 'miss' }) };
}

/**
 * Asks until `gateway` answers from its session cache. A replica serves nothing from memory until
 * its invalidation channel is subscribed; on a loaded two-core run that SUBSCRIBE can time out
 * (500 ms) and is retried a second later, and every lookup meanwhile goes to the store.
 */
async function untilRemembered(gateway: TestGateway, browser: Browser): Promise<void> {
  await expect
    .poll(async () => {
      const before = await lookups(gateway);
      expect((await browser.graphql(GREETING)).codes).toEqual([]);
      expect((await browser.graphql(GREETING)).codes).toEqual([]);
      return (await lookups(gateway)).hit - before.hit;
    })
    .toBeGreaterThanOrEqual(1);
}

/** Asks until the answer has a code (or 3 s pass); returns the codes and how long it took. */
async function untilRefused(browser: Browser): Promise<{ codes: string[]; ms: number; answered: number }> {
  const started = performance.now();
  let answered = 0;
  for (;;) {
    const { codes } = await browser.graphql(GREETING);
    if (codes.length || performance.now() - started > 3_000) return { codes, ms: performance.now() - started, answered };
    answered++;
  }
}

describe('the session cache', () => {
  it('answers a burst of one session with one session-store lookup', async () => {
    const browser = new Browser(replicaA().url);
    expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
    const onB = on(replicaB(), browser);
    await untilRemembered(replicaB(), onB);
    // Past the entry's life, so that the burst starts with a lookup.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const before = await lookups(replicaB());
    for (let i = 0; i < 10; i++) expect((await onB.graphql(GREETING)).codes).toEqual([]);
    const after = await lookups(replicaB());
    // The first request asks the store; the rest (well within a second) are remembered.
    expect(after.miss - before.miss).toBeGreaterThanOrEqual(1);
    expect(after.miss - before.miss).toBeLessThanOrEqual(2);
    expect(after.hit - before.hit).toBeGreaterThanOrEqual(8);
  });

  it('ends a session on the other replica as soon as it logs out, not a cache life later', async () => {
    const browser = new Browser(replicaA().url);
    expect((await browser.login(DEMO_ACCOUNT.email, DEMO_ACCOUNT.password)).codes).toEqual([]);
    const onB = on(replicaB(), browser);
    await untilRemembered(replicaB(), onB);

    expect((await browser.graphql('mutation { logout }')).body.data).toEqual({ logout: true });
    const refused = await untilRefused(onB);
    expect(refused.codes).toEqual(['UNAUTHENTICATED']);
    // Without the invalidation message B would answer from memory for up to a second.
    expect(refused.answered).toBe(0);
    expect(refused.ms).toBeLessThan(250);
  });
});

interface Value {
  readonly token: string;
  readonly end: number;
}

describe('the session cache between two replicas', () => {
  const clients: Redis[] = [];
  const connect = async (connectionName?: string) => {
    const client = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, ...(connectionName ? { connectionName } : {}) });
    clients.push(client);
    await client.connect();
    return client;
  };
  let now = 1_000_000;
  const replica = async (ttlMs = 1_000): Promise<SessionCache<Value>> =>
    createSessionCache<Value>({ ttlMs, maxEntries: 3, clock: () => now, redis: await connect(), subscriber: await connect(), endOf: (value) => value.end });
  /** Until the replica's subscription is confirmed (a value loaded before that is not kept). */
  const subscribed = async (cache: SessionCache<Value>) => {
    for (let i = 0; i < 100; i++) {
      await cache.load('probe', () => Promise.resolve('x'), () => ({ token: 'probe', end: Infinity }));
      if (cache.get('probe')) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('never subscribed');
  };
  const keep = (value: Value) => value;
  const idOf = (list: string, name: string) => {
    const line = list.split('\n').find((entry) => entry.includes(` name=${name} `));
    const id = /\bid=(\d+)/.exec(line ?? '')?.[1];
    if (!id) throw new Error(`no client named ${name}`);
    return id;
  };
  let key = 0;
  const nextKey = () => `sgw:session:test-${process.pid}-${++key}`;

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
  });

  it('drops an entry on every replica when one invalidates it', async () => {
    const [x, y] = [await replica(), await replica()];
    await Promise.all([subscribed(x), subscribed(y)]);
    const k = nextKey();
    await x.load(k, () => Promise.resolve(({ token: 't1', end: Infinity })), keep);
    await y.load(k, () => Promise.resolve(({ token: 't1', end: Infinity })), keep);
    expect(x.get(k)?.token).toBe('t1');
    await y.invalidate(k);
    expect(y.get(k)).toBeUndefined();
    const started = performance.now();
    while (x.get(k) && performance.now() - started < 1_000) await new Promise((resolve) => setTimeout(resolve, 1));
    expect(x.get(k)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(100);
  });

  it('does not keep a store answer that raced an invalidation of the same session', async () => {
    const [x, y] = [await replica(), await replica()];
    await Promise.all([subscribed(x), subscribed(y)]);
    const k = nextKey();
    let release: () => void = () => undefined;
    const loading = x.load(k, () => new Promise<Value>((resolve) => (release = () => resolve({ token: 'old', end: Infinity }))), keep);
    await y.invalidate(k);
    // The message reaches x while its store answer is still on the way.
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    expect((await loading).token).toBe('old');
    expect(x.get(k)).toBeUndefined();
  });

  it('keeps an entry no longer than its life, nor past the session\'s end, and bounds the entries', async () => {
    const x = await replica(1_000);
    await subscribed(x);
    const [k1, k2] = [nextKey(), nextKey()];
    await x.load(k1, () => Promise.resolve(({ token: 'a', end: Infinity })), keep);
    await x.load(k2, () => Promise.resolve(({ token: 'b', end: now + 300 })), keep);
    now += 299;
    expect(x.get(k1)?.token).toBe('a');
    expect(x.get(k2)?.token).toBe('b');
    now += 1;
    expect(x.get(k2)).toBeUndefined();
    now += 700;
    expect(x.get(k1)).toBeUndefined();
    for (let i = 0; i < 5; i++) await x.load(nextKey(), () => Promise.resolve(({ token: `n${i}`, end: Infinity })), keep);
    expect(x.size).toBeLessThanOrEqual(3);
  });

  it('forgets everything and serves nothing from memory while its channel is disconnected', async () => {
    const redis = await connect();
    const name = `session-cache-test-${process.pid}`;
    const subscriber = await connect(name);
    const x = createSessionCache<Value>({ ttlMs: 1_000, maxEntries: 10, clock: () => now, redis, subscriber, endOf: (value) => value.end });
    await subscribed(x);
    const k = nextKey();
    await x.load(k, () => Promise.resolve(({ token: 't', end: Infinity })), keep);
    expect(x.get(k)?.token).toBe('t');
    // Another client kills the subscription connection: messages could be missed from now on.
    expect(await redis.client('KILL', 'TYPE', 'pubsub', 'SKIPME', 'yes', 'ID', idOf(String(await redis.client('LIST')), name))).toBe(1);
    const started = performance.now();
    while (x.get(k) && performance.now() - started < 1_000) await new Promise((resolve) => setTimeout(resolve, 1));
    expect(x.get(k)).toBeUndefined();
    await subscribed(x);
    await x.load(k, () => Promise.resolve(({ token: 't3', end: Infinity })), keep);
    expect(x.get(k)?.token).toBe('t3');
  });

  it('keeps nothing read while its channel was down, even when the answer arrives after it is back', async () => {
    const redis = await connect();
    const subscriber = await connect();
    const x = createSessionCache<Value>({ ttlMs: 1_000, maxEntries: 10, clock: () => now, redis, subscriber, endOf: (value) => value.end });
    await subscribed(x);
    const ended = new Promise((resolve) => subscriber.once('end', resolve));
    subscriber.disconnect();
    await ended;
    const k = nextKey();
    // The store is asked while no invalidation can arrive (a logout elsewhere would be missed)...
    let release: () => void = () => undefined;
    const loading = x.load(k, () => new Promise<Value>((resolve) => (release = () => resolve({ token: 'unheard', end: Infinity }))), keep);
    // ...and answers once the channel is back.
    await subscriber.connect();
    await subscribed(x);
    release();
    expect((await loading).token).toBe('unheard');
    expect(x.get(k)).toBeUndefined();
  });

  it('empties and bypasses its memory once a store command fails, until one succeeds', async () => {
    const x = await replica();
    await subscribed(x);
    const [k1, k2, k3] = [nextKey(), nextKey(), nextKey()];
    await x.load(k1, () => Promise.resolve({ token: 'a', end: Infinity }), keep);
    expect(x.get(k1)?.token).toBe('a');
    await expect(x.load(k2, () => Promise.reject(new Error('Command timed out')), keep)).rejects.toThrow('Command timed out');
    expect(x.get(k1)).toBeUndefined();
    await x.load(k3, () => Promise.resolve({ token: 'c', end: Infinity }), keep);
    expect(x.get(k3)?.token).toBe('c');
  });

  it('counts an entry\'s life from before the store was asked', async () => {
    const x = await replica(1_000);
    await subscribed(x);
    const k = nextKey();
    const asked = now;
    await x.load(
      k,
      () => {
        now += 600; // a slow store answer
        return Promise.resolve({ token: 'slow', end: Infinity });
      },
      keep,
    );
    now = asked + 999;
    expect(x.get(k)?.token).toBe('slow');
    now = asked + 1_000;
    expect(x.get(k)).toBeUndefined();
  });

});
