/**
 * The cache store contract, run against both implementations (a real Redis, never a mock):
 * entries with a TTL, groups dropped whole or by id and alias through their own index, puts
 * skipped after a drop (generations), locks whose release wakes waiters at once.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryCacheStore } from '../../src/cache/memory-cache-store';
import { createRedisCacheStore } from '../../src/cache/redis-cache-store';
import { UNKNOWN_GENERATION, type CacheStore } from '../../src/cache/cache-store';
import { TEST_REDIS_URL as REDIS_URL } from '../support/gateway';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const connections: Redis[] = [];

function redisStore(): CacheStore {
  const redis = new Redis(REDIS_URL);
  const subscriber = new Redis(REDIS_URL);
  connections.push(redis, subscriber);
  return createRedisCacheStore({ redis, subscriber });
}

afterAll(() => {
  for (const connection of connections) connection.disconnect();
});

const group = () => `sgw:cache:{test:${randomUUID()}}:pdf`;
/** A bound no test here reaches, but the one about bounds. */
const MAX = 1_000;

describe.each<[string, () => CacheStore, () => CacheStore]>([
  ['memory', createMemoryCacheStore, createMemoryCacheStore],
  ['redis', redisStore, redisStore],
])('the %s cache store', (kind, create, createReplica) => {
  const store = create();

  it('keeps an entry until its TTL', async () => {
    const key = `sgw:cache:test:${randomUUID()}`;
    await store.set(key, 'value', 150);
    expect(await store.get(key)).toBe('value');
    await sleep(250);
    expect(await store.get(key)).toBeNull();
  });

  it('reads members of a group in the order asked, with nulls for the absent', async () => {
    const name = group();
    const { generation } = await store.getMembers(name, []);
    await store.putMembers(name, [{ id: 'a', value: 'A' }, { id: 'b', value: 'B' }], 60_000, generation, MAX);
    expect((await store.getMembers(name, ['b', 'x', 'a'])).values).toEqual(['B', null, 'A']);
  });

  it('drops members by id and by alias, and leaves the others and other groups alone', async () => {
    const name = group();
    const other = group();
    const { generation } = await store.getMembers(name, []);
    await store.putMembers(name, [{ id: 'a', value: 'A', aliases: ['up-a'] }, { id: 'b', value: 'B', aliases: ['up-b'] }, { id: 'c', value: 'C' }], 60_000, generation, MAX);
    await store.putMembers(other, [{ id: 'a', value: 'other' }], 60_000, (await store.getMembers(other, [])).generation, MAX);
    await store.dropMembers(name, { ids: ['a'], aliases: ['up-b'] });
    expect((await store.getMembers(name, ['a', 'b', 'c'])).values).toEqual([null, null, 'C']);
    expect((await store.getMembers(other, ['a'])).values).toEqual(['other']);
    await store.dropMembers(name, 'all');
    expect((await store.getMembers(name, ['c'])).values).toEqual([null]);
    expect((await store.getMembers(other, ['a'])).values).toEqual(['other']);
  });

  it('skips a put whose generation predates a drop (a read that raced a mutation)', async () => {
    const name = group();
    const before = await store.getMembers(name, ['a']);
    await store.dropMembers(name, 'all');
    await store.putMembers(name, [{ id: 'a', value: 'stale' }], 60_000, before.generation, MAX);
    expect((await store.getMembers(name, ['a'])).values).toEqual([null]);
    await store.putMembers(name, [{ id: 'a', value: 'unknown' }], 60_000, UNKNOWN_GENERATION, MAX);
    expect((await store.getMembers(name, ['a'])).values).toEqual([null]);
    const after = await store.getMembers(name, ['a']);
    expect(after.generation).not.toBe(before.generation);
    await store.putMembers(name, [{ id: 'a', value: 'fresh' }], 60_000, after.generation, MAX);
    expect((await store.getMembers(name, ['a'])).values).toEqual(['fresh']);
  });

  it('keeps the most recently written members of a group past its bound, dropping the oldest first', async () => {
    const name = group();
    const generation = () => store.getMembers(name, []).then((read) => read.generation);
    await store.putMembers(name, [{ id: 'a', value: 'A', aliases: ['up-a'] }, { id: 'b', value: 'B', aliases: ['up-b'] }], 60_000, await generation(), 3);
    await store.putMembers(name, [{ id: 'c', value: 'C' }], 60_000, await generation(), 3);
    // Rewritten: a becomes the newest, b the oldest.
    await store.putMembers(name, [{ id: 'a', value: 'A2', aliases: ['up-a'] }], 60_000, await generation(), 3);
    await store.putMembers(name, [{ id: 'd', value: 'D' }, { id: 'e', value: 'E' }], 60_000, await generation(), 3);
    expect((await store.getMembers(name, ['a', 'b', 'c', 'd', 'e'])).values).toEqual(['A2', null, null, 'D', 'E']);
    // The evicted member's alias went with it; the kept one's still drops it.
    await store.dropMembers(name, { ids: [], aliases: ['up-b', 'up-a'] });
    expect((await store.getMembers(name, ['a', 'd', 'e'])).values).toEqual([null, 'D', 'E']);
    if (kind === 'redis') {
      const redis = connections[0];
      expect(await redis?.zcard(`${name}#order`)).toBe(2);
      expect(await redis?.exists(`${name}#aliases`)).toBe(0);
    }
  });

  it('bounds a group written in one call larger than its bound', async () => {
    const name = group();
    const entries = Array.from({ length: 40 }, (_, i) => ({ id: `s${i}`, value: `V${i}` }));
    await store.putMembers(name, entries, 60_000, (await store.getMembers(name, [])).generation, 10);
    const { values } = await store.getMembers(name, entries.map((entry) => entry.id));
    expect(values.filter((value) => value !== null)).toHaveLength(10);
    expect(values.slice(30)).toEqual(entries.slice(30).map((entry) => entry.value));
  });

  /**
   * A one-member read that says why its member is absent (the Redis store's, issue 44: one command
   * for a lookup and its miss's reason) says what `absences` says, and nothing for a member held.
   */
  const expectSaidAbsent = async (name: string, reasons: Record<string, string>) => {
    for (const [id, reason] of Object.entries(reasons)) {
      const read = await store.getMembers(name, [id]);
      expect(read.values).toEqual([null]);
      if (kind === 'redis') expect(read.absent).toEqual([reason]);
      else if (read.absent) expect(read.absent).toEqual([reason]);
    }
  };

  it('says, reading one member, whether it is held, and nothing of why for a member held', async () => {
    const name = group();
    await store.putMembers(name, [{ id: 'a', value: 'A' }], 60_000, (await store.getMembers(name, [])).generation, MAX);
    const read = await store.getMembers(name, ['a']);
    expect(read.values).toEqual(['A']);
    if (read.absent) expect(read.absent).toEqual([null]);
    if (kind === 'redis') expect(read.absent).toEqual([null]);
  });

  it('expires a group with its members, its index a TTL later (so that a miss can tell expired from cold)', async () => {
    const name = group();
    await store.putMembers(name, [{ id: 'a', value: 'A', aliases: ['up-a'] }], 150, (await store.getMembers(name, [])).generation, MAX);
    await sleep(200);
    expect((await store.getMembers(name, ['a'])).values).toEqual([null]);
    expect(await store.absences(name, ['a', 'never'])).toEqual(['expired', 'cold']);
    await expectSaidAbsent(name, { a: 'expired', never: 'cold' });
    await sleep(200);
    if (kind === 'redis') {
      const redis = connections[0];
      expect(await redis?.exists(`${name}#order`, `${name}#aliases`)).toBe(0);
    }
  });

  it('answers how many values a drop took, and remembers why for the next miss', async () => {
    const name = group();
    const { generation } = await store.getMembers(name, []);
    await store.putMembers(name, [{ id: 'a', value: 'A', aliases: ['up-a'] }, { id: 'b', value: 'B' }, { id: 'c', value: 'C' }], 60_000, generation, MAX);
    expect(await store.countMembers(name, { ids: ['a', 'x'], aliases: ['up-a'] })).toBe(1);
    expect(await store.countMembers(name, 'all')).toBe(3);
    expect(await store.dropMembers(name, { ids: ['b'], aliases: ['up-a'] }, 'invalidated')).toBe(2);
    expect(await store.dropMembers(name, 'all', 'purged')).toBe(1);
    expect(await store.countMembers(name, 'all')).toBe(0);
    expect(await store.absences(name, ['a', 'b', 'c', 'x'])).toEqual(['invalidated', 'invalidated', 'purged', 'cold']);
    await expectSaidAbsent(name, { a: 'invalidated', b: 'invalidated', c: 'purged', x: 'cold' });
    // Written again: no longer dropped.
    await store.putMembers(name, [{ id: 'c', value: 'C2' }], 60_000, (await store.getMembers(name, [])).generation, MAX);
    await store.dropMembers(name, { ids: ['zz'], aliases: [] });
    expect((await store.absences(name, ['c']))[0]).not.toBe('purged');
  });

  it('deletes and counts single keys', async () => {
    const [a, b] = [`sgw:cache:{test}:${randomUUID()}`, `sgw:cache:{test}:${randomUUID()}`];
    await store.set(a, 'A', 60_000);
    expect(await store.countKeys([a, b])).toBe(1);
    expect(await store.deleteKeys([a, b])).toBe(1);
    expect(await store.get(a)).toBeNull();
  });

  it('indexes groups until their time', async () => {
    const index = `sgw:cache:{test-${randomUUID()}}:groups`;
    const now = Date.now();
    await store.indexGroup(index, 'g1', now + 60_000);
    await store.indexGroup(index, 'g2', now + 5_000);
    await store.indexGroup(index, 'g1', now + 60_000);
    expect((await store.indexedGroups(index, now)).sort()).toEqual(['g1', 'g2']);
    expect(await store.indexedGroups(index, now + 10_000)).toEqual(['g1']);
  });

  it('delivers a notice to every replica listening, its own included', async () => {
    const replica = createReplica();
    // Pub/sub spans the whole server: other files' notices may arrive too.
    const notice = `purged-${randomUUID()}`;
    const heard: string[] = [];
    const hear = (name: string) => (message: string) => void (message === notice && heard.push(name));
    const stops = [store.onNotice(hear('a'), () => undefined), replica.onNotice(hear('b'), () => undefined)];
    await sleep(100); // subscribed
    await store.announce(notice);
    for (let i = 0; i < 50 && heard.length < 2; i++) await sleep(10);
    for (const stop of stops) stop();
    expect(heard.sort()).toEqual(kind === 'redis' ? ['a', 'b'] : ['a']);
  });

  it('grants a lock to one holder at a time, and wakes a waiter as soon as it is released', async () => {
    const key = `sgw:cache:{test}:lock:${randomUUID()}`;
    const replica = kind === 'redis' ? createReplica() : store;
    const token = await store.acquireLock(key, 5_000, randomUUID());
    expect(token).toEqual(expect.any(String));
    expect(await replica.acquireLock(key, 5_000, randomUUID())).toBeNull();
    const started = Date.now();
    const waited = replica.waitForRelease(key, 5_000).then(() => Date.now() - started);
    await sleep(100);
    await store.releaseLock(key, token ?? '');
    const ms = await waited;
    expect(ms).toBeGreaterThanOrEqual(90);
    expect(ms).toBeLessThan(1_000);
    expect(await replica.acquireLock(key, 5_000, randomUUID())).toEqual(expect.any(String));
  });

  it('lets a lock expire when its holder disappears, and waiters go on', async () => {
    const key = `sgw:cache:{test}:lock:${randomUUID()}`;
    expect(await store.acquireLock(key, 200, randomUUID())).toEqual(expect.any(String));
    const started = Date.now();
    await store.waitForRelease(key, 5_000);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await store.acquireLock(key, 200, randomUUID())).toEqual(expect.any(String));
  });

  it('has waiters go on only once the lock has expired, even on a busy event loop', async () => {
    const key = `sgw:cache:{test}:lock:${randomUUID()}`;
    expect(await store.acquireLock(key, 200, randomUUID())).toEqual(expect.any(String));
    // Busy for 60 ms in this tick: the event loop's clock, read when the tick began, now lags
    // Date.now() by that much, and a timer set now fires that much early by the wall clock (a
    // loaded CI run saw a waiter go on 'expired' while the memory store still held the lock).
    const busyUntil = Date.now() + 60;
    while (Date.now() < busyUntil) {
      // spinning
    }
    await store.waitForRelease(key, 5_000);
    expect(await store.acquireLock(key, 200, randomUUID())).toEqual(expect.any(String));
  });
});
