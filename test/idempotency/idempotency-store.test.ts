/**
 * The idempotency store's contract, run over both implementations (memory, and Redis on the test
 * database): claims, leases and their renewal, orphaned claims and their settling, completion,
 * release, the bounds per identity (keys and bytes), and one winner among claims made at once.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisIdempotencyStore } from '../../src/idempotency/redis-idempotency-store';
import { createMemoryIdempotencyStore, type IdempotencyStore } from '../../src/idempotency/idempotency-store';
import { TEST_REDIS_URL } from '../support/gateway';

const redis = new Redis(TEST_REDIS_URL);
afterAll(() => redis.disconnect());

const OPTIONS = { token: 'token', leaseMs: 30_000, ttlMs: 60_000, maxPerIdentity: 3, maxRunning: 100, maxBytes: 1_000, reserveBytes: 0 };
const name = (identity: string) => ({ identity, key: randomUUID() });
const at = (now: number, overrides: Partial<typeof OPTIONS> = {}) => ({ ...OPTIONS, ...overrides, now });
const answering = (now: number) => ({ ttlMs: OPTIONS.ttlMs, now, token: OPTIONS.token });

describe.each([
  ['memory', () => createMemoryIdempotencyStore()],
  ['redis', () => createRedisIdempotencyStore(redis)],
] as const)('the %s idempotency store', (_kind, create: () => IdempotencyStore) => {
  it('claims a new key, then answers pending with its fingerprint until it is completed', async () => {
    const store = create();
    const record = name(randomUUID());
    const now = Date.now();
    expect(await store.claim(record, 'fp', at(now))).toEqual({ status: 'claimed' });
    expect(await store.claim(record, 'other', at(now))).toEqual({ status: 'pending', fingerprint: 'fp' });
    expect(await store.complete(record, 'fp', 'sealed answer', answering(now))).toEqual({ status: 'stored' });
    expect(await store.claim(record, 'fp', at(now))).toEqual({ status: 'done', fingerprint: 'fp', answer: 'sealed answer' });
    expect(await store.find(record)).toMatchObject({ fingerprint: 'fp', answer: 'sealed answer' });
  });

  it('never frees a claim whose lease ran out: it is orphaned, and settled once as its answer', async () => {
    const store = create();
    const record = name(randomUUID());
    const now = Date.now();
    await store.claim(record, 'fp', at(now, { leaseMs: 1_000 }));
    expect(await store.claim(record, 'fp', at(now + 999))).toEqual({ status: 'pending', fingerprint: 'fp' });
    expect(await store.claim(record, 'fp', at(now + 1_001))).toEqual({ status: 'orphaned', fingerprint: 'fp' });
    // The holder's late answer is not settled over a lease that still held; a settling is not over one that ran out.
    expect(await store.complete(record, 'fp', 'unknown', { ttlMs: OPTIONS.ttlMs, now: now + 500, orphanedOnly: true })).toEqual({ status: 'pending' });
    expect(await store.complete(record, 'fp', 'unknown', { ttlMs: OPTIONS.ttlMs, now: now + 1_001, orphanedOnly: true })).toEqual({ status: 'stored' });
    expect(await store.complete(record, 'fp', 'late answer', answering(now + 2_000))).toEqual({ status: 'kept', answer: 'unknown' });
    expect(await store.claim(record, 'fp', at(now + 2_000))).toEqual({ status: 'done', fingerprint: 'fp', answer: 'unknown' });
  });

  it('keeps a renewed claim pending past its first lease, and renews only its own running claim', async () => {
    const store = create();
    const record = name(randomUUID());
    const now = Date.now();
    await store.claim(record, 'fp', at(now, { leaseMs: 1_000 }));
    expect(await store.renew(record, 'token', now + 5_000, now)).toBe(true);
    expect(await store.claim(record, 'fp', at(now + 4_000))).toEqual({ status: 'pending', fingerprint: 'fp' });
    // Another request's token (the same request sent twice) neither renews nor completes it.
    expect(await store.renew(record, 'other', now + 9_000, now)).toBe(false);
    expect(await store.complete(record, 'fp', 'answer', { ttlMs: OPTIONS.ttlMs, now, token: 'other' })).toEqual({ status: 'gone' });
    await store.complete(record, 'fp', 'answer', answering(now));
    expect(await store.renew(record, 'token', now + 9_000, now)).toBe(false);
  });

  it('forgets a released claim, so that the key can run', async () => {
    const store = create();
    const record = name(randomUUID());
    await store.claim(record, 'fp', at(Date.now()));
    await store.release(record, 'not its token');
    expect((await store.claim(record, 'fp', at(Date.now(), { token: 'second' }))).status).toBe('pending');
    await store.release(record, 'token');
    expect(await store.claim(record, 'fp', at(Date.now()))).toEqual({ status: 'claimed' });
  });

  it('refuses a new key past the bound of keys per identity, with the wait until the oldest expires, and not another identity\'s', async () => {
    const store = create();
    const identity = randomUUID();
    const now = Date.now();
    for (let i = 0; i < OPTIONS.maxPerIdentity; i++) expect((await store.claim(name(identity), 'fp', at(now + i))).status).toBe('claimed');
    expect(await store.claim(name(identity), 'fp', at(now + 10))).toEqual({ status: 'full', retryAfterMs: OPTIONS.ttlMs - 10 });
    expect((await store.claim(name(randomUUID()), 'fp', at(now))).status).toBe('claimed');
    expect((await store.claim(name(identity), 'fp', at(now + OPTIONS.ttlMs + 1))).status).toBe('claimed');
  });

  it('refuses a new key while the identity\'s kept answers reach the byte bound, and frees their bytes as they expire', async () => {
    const store = create();
    const identity = randomUUID();
    const now = Date.now();
    const big = name(identity);
    await store.claim(big, 'fp', at(now));
    // One answer may pass the bound by its own size: it is kept, and the next key waits.
    expect(await store.complete(big, 'fp', 'x'.repeat(1_500), answering(now))).toEqual({ status: 'stored' });
    expect((await store.claim(name(identity), 'fp', at(now + 1))).status).toBe('full');
    expect((await store.claim(name(identity), 'fp', at(now + OPTIONS.ttlMs + 1))).status).toBe('claimed');
  });

  it('bounds the claims of one identity running at once, and counts each as reserved bytes until its answer is kept', async () => {
    const store = create();
    const identity = randomUUID();
    const now = Date.now();
    const running = [name(identity), name(identity)];
    for (const record of running) expect((await store.claim(record, 'fp', at(now, { maxRunning: 2, maxPerIdentity: 10 }))).status).toBe('claimed');
    expect(await store.claim(name(identity), 'fp', at(now, { maxRunning: 2, maxPerIdentity: 10 }))).toEqual({ status: 'full', retryAfterMs: 1_000 });
    // A lapsed lease stops counting (its claim is orphaned, not running).
    expect((await store.claim(name(identity), 'fp', at(now + OPTIONS.leaseMs + 1, { maxRunning: 2, maxPerIdentity: 10 }))).status).toBe('claimed');
    // Running claims reserve 400 bytes each of a 1,000-byte bound: a fourth waits (the third may pass it, as one answer may).
    const other = randomUUID();
    for (let i = 0; i < 3; i++) expect((await store.claim(name(other), 'fp', at(now, { maxPerIdentity: 10, reserveBytes: 400 }))).status).toBe('claimed');
    expect((await store.claim(name(other), 'fp', at(now, { maxPerIdentity: 10, reserveBytes: 400 }))).status).toBe('full');
  });

  it('keeps a record alive while its claim is renewed, even past a TTL shorter than the run', async () => {
    const store = create();
    const record = name(randomUUID());
    await store.claim(record, 'fp', at(Date.now(), { ttlMs: 300, leaseMs: 300 }));
    await store.renew(record, 'token', Date.now() + 2_000, Date.now());
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await store.claim(record, 'fp', at(Date.now()))).toEqual({ status: 'pending', fingerprint: 'fp' });
  });

  it('gives a key claimed ten times at once to exactly one claim', async () => {
    const store = create();
    const record = name(randomUUID());
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => store.claim(record, 'fp', at(Date.now()))));
    expect(outcomes.filter((outcome) => outcome.status === 'claimed')).toHaveLength(1);
  });
});

describe('the redis idempotency store and records kept before sgw:idem:', () => {
  it('finds a record under the session store\'s former prefix in the claim, and settles it there', async () => {
    const store = createRedisIdempotencyStore(redis);
    const record = name(randomUUID());
    const former = `sgw:session:idem:{${record.identity}}:${record.key}`;
    await redis.hset(former, 'fp', 'fp', 'ans', 'kept before');
    await redis.pexpire(former, 60_000);
    expect(await store.claim(record, 'fp', at(Date.now()))).toEqual({ status: 'done', fingerprint: 'fp', answer: 'kept before', legacy: true });
    const running = name(randomUUID());
    const formerRunning = `sgw:session:idem:{${running.identity}}:${running.key}`;
    await redis.hset(formerRunning, 'fp', 'fp', 'lease', String(Date.now() - 1));
    await redis.pexpire(formerRunning, 60_000);
    expect(await store.claim(running, 'fp', at(Date.now()))).toEqual({ status: 'orphaned', fingerprint: 'fp', legacy: true });
    expect(await store.complete({ ...running, legacy: true }, 'fp', 'unknown', { ttlMs: 60_000, now: Date.now(), orphanedOnly: true })).toEqual({ status: 'stored' });
    expect(await redis.hget(formerRunning, 'ans')).toBe('unknown');
  });
});
