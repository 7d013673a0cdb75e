import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createCredentialCipher } from '../../src/credentials/cipher';
import { createDerivedKeys } from '../../src/derived-keys';
import type { UpstreamCredential } from '../../src/upstream/credential';
import { createMemorySessionStore } from '../../src/session/memory-session-store';
import { createRedisSessionStore } from '../../src/session/redis-session-store';
import { indexKeyOf } from '../../src/session/session-index';
import { Sessions, sessionKey } from '../../src/session/sessions';
import type { SessionRecord, SessionStore } from '../../src/session/session-store';
import { TEST_REDIS_URL as REDIS_URL } from '../support/gateway';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// A real Redis, never a mock. Without one, the first command fails and so do the tests.
const redis = new Redis(REDIS_URL);
const keysToClean = new Set<string>();

afterAll(async () => {
  if (keysToClean.size > 0) await redis.del(...keysToClean);
  await redis.quit();
});

function newKey(): string {
  const key = `sgw:session:test-${randomUUID()}`;
  keysToClean.add(key);
  return key;
}

function recordAt(now: number, overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    uid: 'user@example.com',
    environment: 'sandbox',
    credential: `v1.sealed-${randomUUID()}`,
    createdAt: now,
    absoluteExpiresAt: now + 3_600_000,
    ...overrides,
  };
}

interface Implementation {
  readonly name: 'memory' | 'redis';
  readonly open: () => { readonly store: SessionStore; readonly close: () => void };
}

const implementations: readonly Implementation[] = [
  {
    name: 'memory',
    open: () => {
      const store = createMemorySessionStore({ clock: Date.now });
      return { store, close: () => store.close() };
    },
  },
  {
    name: 'redis',
    open: () => ({ store: createRedisSessionStore(redis), close: () => undefined }),
  },
];

for (const { name, open } of implementations) describe(`the ${name} session store`, () => {
  let store: SessionStore;
  let close: () => void = () => undefined;

  beforeAll(async () => {
    ({ store, close } = open());
    // Fails (rather than skips) this block when Redis is not there.
    await store.ping();
  });

  afterAll(() => close());

  it('reports its own kind', () => {
    expect(store.kind).toBe(name);
  });

  it('returns the record on a touch after create', async () => {
    const key = newKey();
    const now = Date.now();
    const record = recordAt(now);
    await store.create(key, record, 60_000);
    expect(await store.touch(key, 60_000, Date.now())).toEqual({ status: 'active', record });
  });

  it('reports an unknown key as missing', async () => {
    expect(await store.touch(newKey(), 60_000, Date.now())).toEqual({ status: 'missing' });
  });

  it('forgets a session not touched within idleMs', async () => {
    const key = newKey();
    await store.create(key, recordAt(Date.now()), 150);
    await sleep(300);
    expect(await store.touch(key, 150, Date.now())).toEqual({ status: 'missing' });
  });

  it('extends the idle life on every touch', async () => {
    const key = newKey();
    const record = recordAt(Date.now());
    await store.create(key, record, 500);
    await sleep(300);
    expect(await store.touch(key, 500, Date.now())).toEqual({ status: 'active', record });
    await sleep(300);
    // 600 ms after create, beyond the first idle window, yet alive thanks to the touch.
    expect(await store.touch(key, 500, Date.now())).toEqual({ status: 'active', record });
  });

  it('reads a session on peek without extending its idle life, with when that life ends', async () => {
    const key = newKey();
    const record = recordAt(Date.now());
    const created = Date.now();
    await store.create(key, record, 500);
    await sleep(300);
    const peeked = await store.peek(key, Date.now());
    expect(peeked).toMatchObject({ status: 'active', record });
    const idleEnd = peeked.status === 'active' ? peeked.idleExpiresAt : 0;
    expect(idleEnd).toBeGreaterThanOrEqual(created + 450);
    expect(idleEnd).toBeLessThanOrEqual(Date.now() + 250);
    await sleep(300);
    // 600 ms after create: the peek did not keep it alive.
    expect(await store.peek(key, Date.now())).toEqual({ status: 'missing' });
  });

  it('reports a session past its absolute end as expired on peek and deletes it', async () => {
    const key = newKey();
    const record = recordAt(Date.now(), { absoluteExpiresAt: Date.now() + 60_000 });
    await store.create(key, record, 60_000);
    expect(await store.peek(key, record.absoluteExpiresAt + 1)).toEqual({ status: 'expired' });
    expect(await store.peek(key, Date.now())).toEqual({ status: 'missing' });
  });

  it('reports a session past its absolute end as expired and deletes it', async () => {
    const key = newKey();
    const record = recordAt(Date.now(), { absoluteExpiresAt: Date.now() + 60_000 });
    await store.create(key, record, 60_000);
    expect(await store.touch(key, 60_000, record.absoluteExpiresAt + 1)).toEqual({ status: 'expired' });
    expect(await store.touch(key, 60_000, Date.now())).toEqual({ status: 'missing' });
  });

  it('treats the absolute end itself as expired', async () => {
    const key = newKey();
    const record = recordAt(Date.now());
    await store.create(key, record, 60_000);
    expect(await store.touch(key, 60_000, record.absoluteExpiresAt)).toEqual({ status: 'expired' });
  });

  it('replaces the credential when the expected value matches, and touch then shows the new one', async () => {
    const key = newKey();
    const record = recordAt(Date.now(), { credential: 'v1.first' });
    await store.create(key, record, 60_000);
    expect(await store.replaceCredential(key, 'v1.first', 'v1.second')).toBe(true);
    expect(await store.touch(key, 60_000, Date.now())).toEqual({ status: 'active', record: { ...record, credential: 'v1.second' } });
  });

  it('keeps the newer credential when replaceCredential is called with a stale expected value', async () => {
    const key = newKey();
    const record = recordAt(Date.now(), { credential: 'v1.first' });
    await store.create(key, record, 60_000);
    expect(await store.replaceCredential(key, 'v1.first', 'v1.second')).toBe(true);
    expect(await store.replaceCredential(key, 'v1.first', 'v1.late')).toBe(false);
    expect(await store.touch(key, 60_000, Date.now())).toEqual({ status: 'active', record: { ...record, credential: 'v1.second' } });
  });

  it('deletes the session on deleteIfCredential only while the credential is still the expected one', async () => {
    const key = newKey();
    await store.create(key, recordAt(Date.now(), { credential: 'v1.first' }), 60_000);
    expect(await store.replaceCredential(key, 'v1.first', 'v1.second')).toBe(true);
    expect(await store.deleteIfCredential(key, 'v1.first')).toBe(false);
    expect((await store.touch(key, 60_000, Date.now())).status).toBe('active');
    expect(await store.deleteIfCredential(key, 'v1.second')).toBe(true);
    expect(await store.touch(key, 60_000, Date.now())).toEqual({ status: 'missing' });
  });

  it('refuses replaceCredential on an unknown key', async () => {
    const key = newKey();
    expect(await store.replaceCredential(key, 'v1.first', 'v1.second')).toBe(false);
    expect(await store.touch(key, 60_000, Date.now())).toEqual({ status: 'missing' });
  });

  it('removes a session on delete', async () => {
    const key = newKey();
    await store.create(key, recordAt(Date.now()), 60_000);
    await store.delete(key);
    expect(await store.touch(key, 60_000, Date.now())).toEqual({ status: 'missing' });
  });

  it('accepts delete of an unknown key', async () => {
    await expect(store.delete(newKey())).resolves.toBeUndefined();
  });

  it('resolves ping', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });
});

describe('the redis session store in Redis', () => {
  const store = createRedisSessionStore(redis);

  it('gives the key a TTL right after create', async () => {
    const key = newKey();
    await store.create(key, recordAt(Date.now()), 60_000);
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('never sets a TTL beyond absoluteExpiresAt - now on create', async () => {
    const key = newKey();
    const now = Date.now();
    const record = recordAt(now, { absoluteExpiresAt: now + 1_000 });
    await store.create(key, record, 60_000);
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(record.absoluteExpiresAt - now);
  });

  it('never sets a TTL beyond absoluteExpiresAt - now on touch', async () => {
    const key = newKey();
    const created = Date.now();
    const record = recordAt(created, { absoluteExpiresAt: created + 5_000 });
    await store.create(key, record, 2_000);
    const now = Date.now();
    expect((await store.touch(key, 60_000, now)).status).toBe('active');
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(record.absoluteExpiresAt - now);
  });

  it('keeps the TTL when the credential is replaced', async () => {
    const key = newKey();
    const record = recordAt(Date.now(), { credential: 'v1.first' });
    await store.create(key, record, 60_000);
    expect(await store.replaceCredential(key, 'v1.first', 'v1.second')).toBe(true);
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });
});

describe('Sessions over the redis store', () => {
  const store = createRedisSessionStore(redis);
  const cipher = createCredentialCipher(randomBytes(32));
  const keys = createDerivedKeys(randomBytes(32));
  const sessions = new Sessions({ store, cipher, idleMs: 60_000, absoluteMs: 3_600_000, keys });

  function credential(): UpstreamCredential {
    return { accessToken: `token-${randomUUID()}`, client: `client-${randomUUID()}`, uid: 'user@example.com' };
  }

  async function createSession(
    on: Sessions = sessions,
    value: UpstreamCredential = credential(),
  ): Promise<Awaited<ReturnType<Sessions['create']>>> {
    const created = await on.create('sandbox', value);
    keysToClean.add(sessionKey(created.id));
    keysToClean.add(indexKeyOf(sessionKey(created.id)) ?? sessionKey(created.id));
    return created;
  }

  it('returns an id of its user\'s keyed name and 43 random base64url characters (256 bits)', async () => {
    const { id } = await createSession();
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
    // The name is the user's (the same for their next session), the rest is new each time.
    const next = await createSession();
    expect(next.id.split('.')[0]).toBe(id.split('.')[0]);
    expect(next.id.split('.')[1]).not.toBe(id.split('.')[1]);
  });

  it('stores the session under the hashed key, never under the raw id, and never in plain text', async () => {
    const value = credential();
    const { id, session } = await createSession(sessions, value);
    expect(session.key).toBe(sessionKey(id));
    expect(session.key).not.toContain(id);
    expect(await redis.exists(sessionKey(id))).toBe(1);
    expect(await redis.exists(id)).toBe(0);
    expect(await redis.exists(`sgw:session:${id}`)).toBe(0);
    const hash = await redis.hgetall(sessionKey(id));
    expect(Object.keys(hash).length).toBeGreaterThan(0);
    for (const field of Object.values(hash)) {
      expect(field).not.toContain(id);
      expect(field).not.toContain(value.accessToken);
      expect(field).not.toContain(value.client);
    }
  });

  it('resolves an id back to its credential', async () => {
    const value = credential();
    const { id } = await createSession(sessions, value);
    const resolved = await sessions.resolve(id);
    expect(resolved.status).toBe('active');
    if (resolved.status !== 'active') return;
    expect(resolved.session.credential).toEqual(value);
    expect(resolved.session.uid).toBe(value.uid);
    expect(resolved.session.environment).toBe('sandbox');
    expect(resolved.session.key).toBe(sessionKey(id));
  });

  it('gives two creates different ids', async () => {
    const a = await createSession();
    const b = await createSession();
    expect(a.id).not.toBe(b.id);
    expect(a.session.key).not.toBe(b.session.key);
  });

  it('reports a malformed id as malformed without a round trip to Redis', async () => {
    const sendCommand = vi.spyOn(redis, 'sendCommand');
    const touch = vi.spyOn(store, 'touch');
    try {
      expect(await sessions.resolve('abc')).toEqual({ status: 'malformed' });
      expect(touch).not.toHaveBeenCalled();
      expect(sendCommand).not.toHaveBeenCalled();
      // The spies do see a lookup of a well-formed id.
      expect(await sessions.resolve(randomBytes(32).toString('base64url'))).toEqual({ status: 'missing' });
      expect(touch).toHaveBeenCalledTimes(1);
      expect(sendCommand).toHaveBeenCalled();
    } finally {
      sendCommand.mockRestore();
      touch.mockRestore();
    }
  });

  it('rotates the credential once, and refuses a second rotation from the same old session', async () => {
    const { id } = await createSession();
    const before = await sessions.resolve(id);
    if (before.status !== 'active') throw new Error(`expected an active session, got ${before.status}`);

    const second = credential();
    const sealed = await sessions.rotate(before.session, second);
    expect(sealed).toMatch(/^v3\./);
    expect(sealed).not.toContain(second.accessToken);

    const after = await sessions.resolve(id);
    if (after.status !== 'active') throw new Error(`expected an active session, got ${after.status}`);
    expect(after.session.credential).toEqual(second);
    expect(after.session.sealed).toBe(sealed);

    expect(await sessions.rotate(before.session, credential())).toBeUndefined();
    const last = await sessions.resolve(id);
    if (last.status !== 'active') throw new Error(`expected an active session, got ${last.status}`);
    expect(last.session.credential).toEqual(second);
  });

  it('does not open a record sealed under another key, and reports it missing', async () => {
    const { id } = await createSession();
    const other = new Sessions({ store, cipher: createCredentialCipher(randomBytes(32)), idleMs: 60_000, absoluteMs: 3_600_000, keys });
    expect(await other.resolve(id)).toEqual({ status: 'missing' });
    // An unusable record is dropped.
    expect(await redis.exists(sessionKey(id))).toBe(0);
    expect(await sessions.resolve(id)).toEqual({ status: 'missing' });
  });

  it('does not open a record whose uid or environment was altered in the store, and reports it missing', async () => {
    for (const [field, value] of [['uid', 'someone-else@example.com'], ['env', 'production']] as const) {
      const { id } = await createSession();
      await redis.hset(sessionKey(id), field, value);
      expect(await sessions.resolve(id)).toEqual({ status: 'missing' });
      expect(await redis.exists(sessionKey(id))).toBe(0);
    }
  });

  it('does not extend a session whose absolute end was moved later in Redis, and deletes it (regression)', async () => {
    let now = Date.now();
    const clocked = new Sessions({ store, cipher, idleMs: 60_000, absoluteMs: 3_600_000, clock: () => now, keys });
    const { id } = await createSession(clocked);
    // Near the real end, someone with write access to Redis moves it a day later.
    now += 3_600_000 - 30_000;
    await redis.hset(sessionKey(id), 'abs', String(now + 86_400_000));
    expect(await clocked.resolve(id)).toEqual({ status: 'missing' });
    expect(await redis.exists(sessionKey(id))).toBe(0);
  });

  it('does not open a session whose uid and absolute end were both edited in Redis', async () => {
    const { id, session } = await createSession();
    await redis.hset(sessionKey(id), 'uid', 'victim@example.com', 'abs', String(session.absoluteExpiresAt + 1));
    expect(await sessions.resolve(id)).toEqual({ status: 'missing' });
  });

  it('ends a session', async () => {
    const { id, session } = await createSession();
    await sessions.end(session);
    expect(await sessions.resolve(id)).toEqual({ status: 'missing' });
  });
});
