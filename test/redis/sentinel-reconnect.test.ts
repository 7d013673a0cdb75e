/**
 * A Sentinel client of the gateway keeps reconnecting when ioredis's failover detector ends its
 * connector in the middle of a reconnection (a +switch-master while the client asks a sentinel for
 * the master, as after a master's death): without a restart the client ended for good and the
 * gateway stayed without its session store (one Sentinel failover run in seven under load).
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRedisTarget } from '../../src/config/redis-url';
import { createRedisClient, waitForReady } from '../../src/redis';
import { startRedisSentinel, type SentinelGroup } from '../support/redis-topologies';

let group: SentinelGroup;
beforeAll(async () => {
  group = await startRedisSentinel();
}, 30_000);
afterAll(() => group.stop());

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('a Sentinel client', () => {
  it('connects again after its connector was ended during a reconnection', async () => {
    const client = createRedisClient({ target: parseRedisTarget(group.url), name: 'sentinel-reconnect' }) as Redis;
    try {
      expect(await waitForReady(client, 10_000)).toBe(true);
      // What the failover detector does on +switch-master, while the client is connecting again.
      const connector = (client as unknown as { connector: { disconnect(): void } }).connector;
      client.disconnect(true);
      await new Promise<void>((resolve) => client.once('connecting', () => resolve()));
      connector.disconnect();
      await sleep(50);
      expect(await waitForReady(client, 5_000)).toBe(true);
      expect(await client.ping()).toBe('PONG');
    } finally {
      client.disconnect();
    }
  });

  it('stays closed after the gateway closes it', async () => {
    const client = createRedisClient({ target: parseRedisTarget(group.url), name: 'sentinel-closed' }) as Redis;
    expect(await waitForReady(client, 10_000)).toBe(true);
    await client.quit();
    await sleep(1_500);
    expect(client.status).toBe('end');
    const other = createRedisClient({ target: parseRedisTarget(group.url), name: 'sentinel-disconnected' }) as Redis;
    expect(await waitForReady(other, 10_000)).toBe(true);
    other.disconnect();
    await sleep(1_500);
    expect(other.status).toBe('end');
  });
});
