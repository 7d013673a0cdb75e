/**
 * The per-user index of sessions (src/session/session-index.ts), one spec over both stores: what
 * `sessions`, `endSession`, `logoutEverywhere`, the operators' revoke and the cap read. A real
 * Redis for the Redis store, never a mock.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemorySessionStore } from '../../src/session/memory-session-store';
import { createRedisSessionStore } from '../../src/session/redis-session-store';
import { indexKeyOf, userIndexKey, type IndexedSessionStore } from '../../src/session/session-index';
import type { SessionRecord } from '../../src/session/session-store';
import { TEST_REDIS_URL } from '../support/gateway';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const redis = new Redis(TEST_REDIS_URL);
const written = new Set<string>();
afterAll(async () => {
  if (written.size > 0) await redis.del(...written);
  await redis.quit();
});

/** A user of its own (a keyed name, as Sessions makes them) and a way to make their session keys. */
function newUser(): { readonly index: string; session(): string } {
  const user = randomBytes(16).toString('base64url').slice(0, 22);
  written.add(userIndexKey(user));
  return {
    index: userIndexKey(user),
    session() {
      const key = `sgw:session:{${user}}:${randomBytes(32).toString('base64url')}`;
      written.add(key);
      return key;
    },
  };
}

function recordAt(now: number, overrides: Partial<SessionRecord> = {}): SessionRecord {
  return { uid: 'user@example.com', environment: 'sandbox', credential: `v3.sealed-${randomUUID()}`, createdAt: now, absoluteExpiresAt: now + 3_600_000, userAgent: 'Spec/1.0', listingMac: 'mac', ...overrides };
}

const keysOf = async (store: IndexedSessionStore, index: string, now = Date.now()) => (await store.indexed(index, now)).map((entry) => entry.key).sort();

const implementations = [
  { name: 'memory', open: () => createMemorySessionStore() },
  { name: 'redis', open: () => createRedisSessionStore(redis) },
] as const;

for (const { name, open } of implementations) describe(`the session index of the ${name} store`, () => {
  let store: IndexedSessionStore;
  beforeAll(async () => {
    store = open();
    await store.ping();
  });
  afterAll(() => {
    if ('close' in store && typeof store.close === 'function') store.close();
  });

  it('names the index of a session key with a user, and none for a key made before indexes', () => {
    const user = newUser();
    expect(indexKeyOf(user.session())).toBe(user.index);
    expect(indexKeyOf(`sgw:session:${randomBytes(32).toString('base64url')}`)).toBeUndefined();
  });

  it('lists a created session with its record, last used at its creation', async () => {
    const user = newUser();
    const key = user.session();
    const now = Date.now();
    const record = recordAt(now);
    expect(await store.create(key, record, 60_000, 10)).toEqual([]);
    expect(await store.indexed(user.index, Date.now())).toEqual([{ key, record, lastSeenAt: now }]);
  });

  it('records each touch as a use, but not a peek', async () => {
    const user = newUser();
    const key = user.session();
    const created = Date.now() - 5_000;
    await store.create(key, recordAt(created), 60_000, 10);
    await store.peek(key, created + 1_000);
    expect((await store.indexed(user.index, Date.now()))[0]?.lastSeenAt).toBe(created);
    expect((await store.touch(key, 60_000, created + 2_000)).status).toBe('active');
    expect((await store.indexed(user.index, Date.now()))[0]?.lastSeenAt).toBe(created + 2_000);
  });

  it('takes a session with its entry in one step: the record once, then nothing', async () => {
    const user = newUser();
    const [kept, taken] = [user.session(), user.session()];
    const record = recordAt(Date.now());
    await store.create(kept, recordAt(Date.now()), 60_000, 10);
    await store.create(taken, record, 60_000, 10);
    const [first, second] = await Promise.all([store.take(taken), store.take(taken)]);
    expect([first, second].filter(Boolean)).toEqual([record]);
    expect(await store.touch(taken, 60_000, Date.now())).toEqual({ status: 'missing' });
    expect(await keysOf(store, user.index)).toEqual([kept]);
  });

  it('drops the entry of a session ended by delete or by deleteIfCredential', async () => {
    const user = newUser();
    const [deleted, refused, kept] = [user.session(), user.session(), user.session()];
    for (const key of [deleted, refused, kept]) await store.create(key, recordAt(Date.now(), { credential: 'v3.current' }), 60_000, 10);
    await store.delete(deleted);
    expect(await store.deleteIfCredential(refused, 'v3.current')).toBe(true);
    expect(await keysOf(store, user.index)).toEqual([kept]);
  });

  it('answers the least recently used sessions beyond the cap, never the new one, and leaves them for the caller to end', async () => {
    const user = newUser();
    const start = Date.now() - 10_000;
    const [a, b, c, d] = [user.session(), user.session(), user.session(), user.session()];
    await store.create(a, recordAt(start), 60_000, 3);
    await store.create(b, recordAt(start + 1_000), 60_000, 3);
    await store.create(c, recordAt(start + 2_000), 60_000, 3);
    // The oldest login is the most recently used: b is now the least recently used.
    await store.touch(a, 60_000, start + 3_000);
    expect(await store.create(d, recordAt(start + 4_000), 60_000, 3)).toEqual([b]);
    expect(await keysOf(store, user.index)).toEqual([a, b, c, d].sort());
    // With a cap of one, a new login is answered every other session, oldest use first.
    const e = user.session();
    expect(await store.create(e, recordAt(start + 5_000), 60_000, 1)).toEqual([b, c, a, d]);
  });

  it('forgets a session not touched within its idle time, which then takes no place under the cap', async () => {
    const user = newUser();
    const [idle, live, next] = [user.session(), user.session(), user.session()];
    await store.create(idle, recordAt(Date.now()), 150, 2);
    await store.create(live, recordAt(Date.now()), 60_000, 2);
    await sleep(300);
    expect(await keysOf(store, user.index)).toEqual([live]);
    expect(await store.create(next, recordAt(Date.now()), 60_000, 2)).toEqual([]);
  });

  it('leaves out a session past its absolute end, and drops its entry once a touch finds it expired', async () => {
    const user = newUser();
    const key = user.session();
    const now = Date.now();
    await store.create(key, recordAt(now, { absoluteExpiresAt: now + 60_000 }), 60_000, 10);
    expect(await keysOf(store, user.index, now + 60_001)).toEqual([]);
    expect(await store.touch(key, 60_000, now + 60_001)).toEqual({ status: 'expired' });
    expect(await keysOf(store, user.index, now)).toEqual([]);
  });

  it('keeps each user\'s sessions to their own index', async () => {
    const [alice, bob] = [newUser(), newUser()];
    const [mine, theirs] = [alice.session(), bob.session()];
    await store.create(mine, recordAt(Date.now()), 60_000, 1);
    expect(await store.create(theirs, recordAt(Date.now()), 60_000, 1)).toEqual([]);
    expect(await keysOf(store, alice.index)).toEqual([mine]);
    expect(await keysOf(store, bob.index)).toEqual([theirs]);
  });

  it('keeps a session made before indexes working, in no index, until it is deleted', async () => {
    const key = `sgw:session:${randomBytes(32).toString('base64url')}`;
    written.add(key);
    const now = Date.now();
    const legacy: SessionRecord = { uid: 'user@example.com', environment: 'sandbox', credential: 'v2.sealed', createdAt: now, absoluteExpiresAt: now + 3_600_000 };
    expect(await store.create(key, legacy, 60_000, 1)).toEqual([]);
    expect(await store.touch(key, 60_000, Date.now())).toEqual({ status: 'active', record: legacy });
    expect(await store.take(key)).toEqual(legacy);
    expect(await store.touch(key, 60_000, Date.now())).toEqual({ status: 'missing' });
  });
});

describe('the session index in Redis', () => {
  const store = createRedisSessionStore(redis);

  it('keeps the index on its sessions\' hash tag, expiring with the longest-lived of them, without a uid or a cookie in it', async () => {
    const user = newUser();
    const [short, long] = [user.session(), user.session()];
    await store.create(short, recordAt(Date.now()), 5_000, 10);
    await store.create(long, recordAt(Date.now()), 60_000, 10);
    const tag = (key: string) => /\{[^}]+\}/.exec(key)?.[0];
    expect(tag(user.index)).toBe(tag(short));
    const ttl = await redis.pttl(user.index);
    expect(ttl).toBeGreaterThan(55_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    const entries = await redis.hgetall(user.index);
    expect(Object.keys(entries).sort()).toEqual([long, short].sort());
    for (const value of Object.values(entries)) expect(value).toMatch(/^\d+:\d+$/);
  });

  it('moves the index\'s life on with a touch of a session that outlives it', async () => {
    const user = newUser();
    const key = user.session();
    await store.create(key, recordAt(Date.now()), 2_000, 10);
    await store.touch(key, 60_000, Date.now());
    expect(await redis.pttl(user.index)).toBeGreaterThan(55_000);
  });

  it('puts an entry lost from the index back at the next touch: the record is the authority', async () => {
    const user = newUser();
    const key = user.session();
    await store.create(key, recordAt(Date.now()), 60_000, 10);
    await redis.del(user.index);
    expect(await keysOf(store, user.index)).toEqual([]);
    await store.touch(key, 60_000, Date.now());
    expect(await keysOf(store, user.index)).toEqual([key]);
  });

  it('ignores an entry whose session record is gone, and drops an entry that is not one', async () => {
    const user = newUser();
    const [key, gone] = [user.session(), user.session()];
    await store.create(key, recordAt(Date.now()), 60_000, 10);
    await redis.hset(user.index, gone, `${Date.now()}:${Date.now() + 60_000}`, 'planted', 'not-an-entry');
    expect(await keysOf(store, user.index)).toEqual([key]);
    expect(await redis.hexists(user.index, 'planted')).toBe(0);
  });
});
