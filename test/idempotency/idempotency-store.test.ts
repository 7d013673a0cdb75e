/**
 * The idempotency store's contract, run over both implementations (memory, and Redis on the test
 * database): claims, completion, release, the bound per identity, and one winner among claims
 * made at the same moment.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisIdempotencyStore } from '../../src/idempotency/redis-idempotency-store';
import { createMemoryIdempotencyStore, type IdempotencyStore } from '../../src/idempotency/idempotency-store';
import { TEST_REDIS_URL } from '../support/gateway';

const redis = new Redis(TEST_REDIS_URL);
afterAll(() => redis.disconnect());

const OPTIONS = { pendingMs: 30_000, ttlMs: 60_000, maxPerIdentity: 3 };
const name = (identity: string) => ({ identity, key: randomUUID() });

describe.each([
  ['memory', () => createMemoryIdempotencyStore()],
  ['redis', () => createRedisIdempotencyStore(redis)],
] as const)('the %s idempotency store', (_kind, create: () => IdempotencyStore) => {
  it('claims a new key, then answers pending with its fingerprint until it is completed', async () => {
    const store = create();
    const record = name(randomUUID());
    expect(await store.claim(record, 'fp', { ...OPTIONS, now: Date.now() })).toEqual({ status: 'claimed' });
    expect(await store.claim(record, 'other', { ...OPTIONS, now: Date.now() })).toEqual({ status: 'pending', fingerprint: 'fp' });
    await store.complete(record, 'fp', 'sealed answer', OPTIONS.ttlMs);
    expect(await store.claim(record, 'fp', { ...OPTIONS, now: Date.now() })).toEqual({ status: 'done', fingerprint: 'fp', answer: 'sealed answer' });
  });

  it('forgets a released claim, so that the key can run', async () => {
    const store = create();
    const record = name(randomUUID());
    await store.claim(record, 'fp', { ...OPTIONS, now: Date.now() });
    await store.release(record, 'fp');
    expect(await store.claim(record, 'fp', { ...OPTIONS, now: Date.now() })).toEqual({ status: 'claimed' });
  });

  it('refuses a new key past the bound of keys per identity, and not another identity\'s', async () => {
    const store = create();
    const identity = randomUUID();
    for (let i = 0; i < OPTIONS.maxPerIdentity; i++) expect((await store.claim(name(identity), 'fp', { ...OPTIONS, now: Date.now() })).status).toBe('claimed');
    expect(await store.claim(name(identity), 'fp', { ...OPTIONS, now: Date.now() })).toEqual({ status: 'full' });
    expect((await store.claim(name(randomUUID()), 'fp', { ...OPTIONS, now: Date.now() })).status).toBe('claimed');
  });

  it('gives a key claimed ten times at once to exactly one claim', async () => {
    const store = create();
    const record = name(randomUUID());
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => store.claim(record, 'fp', { ...OPTIONS, now: Date.now() })));
    expect(outcomes.filter((outcome) => outcome.status === 'claimed')).toHaveLength(1);
  });
});
