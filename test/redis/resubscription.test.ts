/**
 * The gateway's Redis connections leave resubscription to their subscribers (redis.ts): the
 * session cache and the cache store's lock releases subscribe again on every 'ready' and handle
 * the outcome, while ioredis's own resubscription sends SUBSCRIBE without a handler. A connection
 * closed before that reply (a gateway stopping just as its Redis came back) was an unhandled
 * rejection: a CI run caught one, and in production Node ends the process on one.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRedisTarget } from '../../src/config/redis-url';
import { createRedisClient, waitForReady } from '../../src/redis';
import { ownRedis, type OwnRedis } from '../support/redis-server';

let redis: OwnRedis;
beforeAll(async () => {
  redis = await ownRedis();
  await redis.start();
}, 30_000);
afterAll(() => redis.stop());

const CHANNEL = 'sgw:test:resubscription';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a subscriber connection of the gateway', () => {
  it('does not resubscribe by itself after a reconnection: its owner does, handling the outcome (regression: ioredis\'s own SUBSCRIBE had no handler)', async () => {
    const subscriber = createRedisClient({ target: parseRedisTarget(redis.url), name: 'resubscription' }) as Redis;
    const received: string[] = [];
    subscriber.on('message', (_channel: string, message: string) => received.push(message));
    try {
      expect(await waitForReady(subscriber, 5_000)).toBe(true);
      await subscriber.subscribe(CHANNEL);
      await redis.stop();
      const ready = new Promise<void>((resolve) => subscriber.once('ready', () => resolve()));
      await redis.start();
      await ready;
      await sleep(200);
      const publisher = new Redis(redis.url, { maxRetriesPerRequest: 0 });
      try {
        await publisher.publish(CHANNEL, 'before');
        await sleep(100);
        // ioredis sent nothing of its own after the reconnection.
        expect(received).toEqual([]);
        // The owner's subscription, whose outcome it handles, is what receives.
        await subscriber.subscribe(CHANNEL);
        await publisher.publish(CHANNEL, 'after');
        await sleep(100);
        expect(received).toEqual(['after']);
      } finally {
        publisher.disconnect();
      }
    } finally {
      subscriber.disconnect();
    }
  });
});
