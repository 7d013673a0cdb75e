/**
 * The rate-limit store (rate-limiter.ts), in process with a clock the test moves, one contract run
 * over both implementations (memory, and a real Redis on TEST_REDIS_URL): the sliding window at
 * its exact boundary, an honest Retry-After, weights, reset, atomic counting across replicas, and
 * failing open when Redis stops. login-limits.test.ts covers the login limits built on this store.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/observability/metrics';
import { batchedRateLimit } from '../../src/protection/batched-rate-limit';
import { createMemoryRateLimitStore, createRedisRateLimitStore, failOpenRateLimit, overLimit, type RateLimitStore } from '../../src/protection/rate-limiter';
import { capturedLog } from '../support/captured-log';
import { parseMetrics } from '../support/metrics';
import { ownRedis, type OwnRedis } from '../support/redis-server';
import { TEST_REDIS_URL as REDIS_URL } from '../support/gateway';

// A real Redis, never a mock: without one the first command fails, and so do these tests.
const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
afterAll(async () => {
  await redis.quit();
});

const WINDOW = 60_000;
const LIMIT = 3;

const implementations: readonly { readonly name: string; readonly open: (clock: () => number) => RateLimitStore }[] = [
  { name: 'memory', open: (clock) => createMemoryRateLimitStore(clock) },
  { name: 'redis', open: (clock) => createRedisRateLimitStore(redis, clock) },
  // The batched limit decides limits this small in Redis, request by request (batched-rate-limit.test.ts).
  { name: 'batched redis', open: (clock) => batchedRateLimit(createRedisRateLimitStore(redis, clock), { clock }) },
];

for (const { name, open } of implementations) describe(`the ${name} rate-limit store`, () => {
  let now = 0;
  let store: RateLimitStore;
  let key = '';
  const clock = () => now;
  const hits = async (count: number, weight = 1) => {
    const decisions = [];
    for (let i = 0; i < count; i++) decisions.push(await store.hit(key, LIMIT, WINDOW, weight));
    return decisions;
  };

  beforeEach(() => {
    // The start of a window, far from any earlier run's: the window arithmetic below is exact.
    now = (Math.floor(Date.now() / WINDOW) + 1 + Math.floor(Math.random() * 1e6)) * WINDOW;
    store = open(clock);
    key = `spec:${randomUUID()}`;
  });

  it(`admits ${LIMIT} hits in a window and refuses the next, with a wait of at least a second`, async () => {
    expect((await hits(LIMIT)).every((decision) => decision.allowed && decision.retryAfterMs === 0)).toBe(true);
    const refused = await store.hit(key, LIMIT, WINDOW);
    expect(refused.allowed).toBe(false);
    // The next window counts these 3 until 20 s into it: (60 - 20) / 60 * 3 + 1 = 3.
    expect(refused.retryAfterMs).toBe(WINDOW + 20_000);
  });

  it('keeps its Retry-After: refused a second before it, admitted at it', async () => {
    await hits(LIMIT);
    const { retryAfterMs } = await store.hit(key, LIMIT, WINDOW);
    now += retryAfterMs - 1_000;
    expect((await store.hit(key, LIMIT, WINDOW)).allowed).toBe(false);
    now += 1_000;
    expect((await store.hit(key, LIMIT, WINDOW)).allowed).toBe(true);
  });

  it('counts admitted hits only: a client hammering while refused waits no longer', async () => {
    await hits(LIMIT);
    const first = await store.hit(key, LIMIT, WINDOW);
    await hits(10);
    now += 5_000;
    expect((await store.hit(key, LIMIT, WINDOW)).retryAfterMs).toBe(first.retryAfterMs - 5_000);
  });

  it('slides: the previous window weighs what still overlaps, so a burst at a window\'s end does not double the limit', async () => {
    now += WINDOW - 1_000;
    await hits(LIMIT);
    now += 2_000; // one second into the next window: the 3 still weigh 59/60 * 3
    expect((await store.hit(key, LIMIT, WINDOW)).allowed).toBe(false);
    now += WINDOW - 1_000; // at the end of that window nothing of the previous one is left
    expect((await hits(LIMIT)).every((decision) => decision.allowed)).toBe(true);
  });

  it('weighs a hit by its weight, and never admits one heavier than the limit', async () => {
    expect((await store.hit(key, LIMIT, WINDOW, 2)).allowed).toBe(true);
    expect((await store.hit(key, LIMIT, WINDOW, 2)).allowed).toBe(false);
    expect((await store.hit(key, LIMIT, WINDOW, 1)).allowed).toBe(true);
    const heavy = await store.hit(`${key}:heavy`, LIMIT, WINDOW, LIMIT + 1);
    expect(heavy).toEqual({ allowed: false, retryAfterMs: WINDOW });
  });

  it('counts each key on its own, and forgets a key on reset', async () => {
    await hits(LIMIT);
    expect((await store.hit(`${key}:other`, LIMIT, WINDOW)).allowed).toBe(true);
    await store.reset(key, WINDOW);
    expect((await hits(LIMIT)).every((decision) => decision.allowed)).toBe(true);
  });

  it('never counts a window below 0: a hit admitted before a window boundary and given back (weight -1) after it banks no extra hit (regression)', async () => {
    now += WINDOW - 1_000;
    await hits(1);
    now += 2_000;
    // What a successful sign-in does: its attempt given back, under a limit nothing reaches.
    expect((await store.hit(key, Number.MAX_SAFE_INTEGER, WINDOW, -1)).allowed).toBe(true);
    now += WINDOW - 1_000; // the start of the next window: the one given back in weighs in full
    expect((await hits(LIMIT + 1)).map((decision) => decision.allowed)).toEqual([true, true, true, false]);
  });

  it('admits exactly the limit of 20 concurrent hits from two replicas sharing the store', async () => {
    const replicas = [store, name === 'redis' ? open(clock) : store];
    const decisions = await Promise.all(Array.from({ length: 20 }, (_, i) => replicas[i % 2]!.hit(key, LIMIT, WINDOW)));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(LIMIT);
  });
});

describe('the redis rate-limit store\'s keys', () => {
  it('are sgw:rate:{key}:<window>, the key as hash tag, each written with a TTL of two windows', async () => {
    const now = (Math.floor(Date.now() / WINDOW) + 7) * WINDOW;
    const key = `spec:${randomUUID()}`;
    await createRedisRateLimitStore(redis, () => now).hit(key, LIMIT, WINDOW);
    const name = `sgw:rate:{${key}}:${now / WINDOW}`;
    expect(await redis.get(name)).toBe('1');
    const ttl = await redis.pttl(name);
    expect(ttl).toBeGreaterThan(2 * WINDOW - 5_000);
    expect(ttl).toBeLessThanOrEqual(2 * WINDOW);
  });
});

describe('overLimit', () => {
  it('is RATE_LIMITED (429) with Retry-After in whole seconds rounded up, logged and counted by limit, naming no identifier', () => {
    const captured = capturedLog();
    const metrics = createMetrics({ processMetrics: false });
    const error = overLimit({ log: captured.log, metrics }, 'session', { allowed: false, retryAfterMs: 1_001 });
    expect(error.extensions).toEqual({ code: 'RATE_LIMITED', http: { status: 429, headers: { 'retry-after': '2' } } });
    expect(captured.events('request.rate-limited')).toMatchObject([{ limit: 'session' }]);
    return metrics.registry.metrics().then((text) => expect(parseMetrics(text).sum('statement_gateway_rate_limited_total', { limit: 'session' })).toBe(1));
  });
});

describe('failOpenRateLimit', () => {
  let own: OwnRedis | undefined;
  let client: Redis | undefined;
  afterEach(async () => {
    client?.disconnect();
    await own?.stop();
  });

  it('counts in the process while its Redis is stopped (the limit still holds per replica), and reports the outage and the recovery', async () => {
    own = await ownRedis();
    await own.start();
    // Commands fail at once while the connection is down (no queue), as the gateway's client does.
    client = new Redis(own.url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => 50 });
    client.on('error', () => undefined);
    await client.connect();
    const events: string[] = [];
    const store = failOpenRateLimit(createRedisRateLimitStore(client), () => events.push('error'), () => events.push('ok'));
    const key = `spec:${randomUUID()}`;
    expect((await store.hit(key, LIMIT, WINDOW)).allowed).toBe(true);
    expect(events).toEqual(['ok']);

    await own.stop();
    const during = [];
    for (let i = 0; i < LIMIT + 1; i++) during.push((await store.hit(key, LIMIT, WINDOW)).allowed);
    expect(during).toEqual([true, true, true, false]);
    expect(events.slice(1)).toEqual(['error', 'error', 'error', 'error']);

    await own.start();
    await expect.poll(async () => (await store.hit(`${key}:after`, LIMIT, WINDOW), events.at(-1)), { timeout: 5_000 }).toBe('ok');
  });
});
