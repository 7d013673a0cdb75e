/**
 * The verified-credential store's re-verification window, over both implementations: a record is
 * due 3 s before its end (10 s after the upstream's acceptance), and only one caller claims a due
 * record's re-verification per window, across replicas on the same Redis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVerifiedCredentials, REVERIFY_BEFORE_END_MS, VERIFIED_FOR_MS, type VerifiedCredentials } from '../../src/drop-in/verified-credentials';
import { createRedisClient, waitForReady, type RedisClient } from '../../src/redis';
import { parseRedisTarget } from '../../src/config/redis-url';
import type { UpstreamCredential } from '../../src/upstream/credential';
import { TEST_REDIS_URL } from '../support/gateway';
import { specKeys } from '../support/identities';

let now = 1_900_000_000_000;
const redis: RedisClient = createRedisClient({ target: parseRedisTarget(TEST_REDIS_URL) });
beforeAll(async () => {
  expect(await waitForReady(redis, 5_000)).toBe(true);
});
afterAll(() => redis.quit());

function credential(): UpstreamCredential {
  return { accessToken: `token-${Math.random()}`, client: `client-${Math.random()}`, uid: 'reverify@example.com' };
}

describe.each([
  ['memory', () => createVerifiedCredentials(undefined, { keys: specKeys, clock: () => now })],
  ['redis', () => createVerifiedCredentials(redis, { keys: specKeys, clock: () => now })],
])('verified credentials (%s)', (kind, create: () => VerifiedCredentials) => {
  it('is due for re-verification 3 s before its end, and ends 10 s after the acceptance', async () => {
    const verified = create();
    const accepted = credential();
    await verified.remember('sandbox', accepted, now);
    expect(await verified.check('sandbox', accepted)).toEqual({ expiry: '', due: false });
    now += VERIFIED_FOR_MS - REVERIFY_BEFORE_END_MS;
    expect(await verified.check('sandbox', accepted)).toEqual({ expiry: '', due: true });
    now += REVERIFY_BEFORE_END_MS;
    expect(await verified.check('sandbox', accepted)).toBeUndefined();
  });

  it('lets one caller claim a re-verification per window, whichever replica asks', async () => {
    // Two replicas: two stores on one backend (the memory store is one replica's own).
    const first = create();
    const second = kind === 'redis' ? create() : first;
    const accepted = credential();
    expect(await first.claimReverification('sandbox', accepted)).toBe(true);
    expect(await second.claimReverification('sandbox', accepted)).toBe(false);
    expect(await first.claimReverification('sandbox', accepted)).toBe(false);
    // Another client of the same uid has its own window.
    expect(await second.claimReverification('sandbox', credential())).toBe(true);
  });
});
