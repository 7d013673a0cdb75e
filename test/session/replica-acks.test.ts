/**
 * A new session waits for a replica's acknowledgement (`WAIT 1`) where the topology has replicas,
 * on a real Sentinel group (a primary and a replica): the session is on the replica when create()
 * returns, a replica that cannot answer costs one bounded wait and then none for a while, and a
 * single server never waits. The replica is frozen with SIGSTOP (a stalled host) and thawed.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRedisTarget } from '../../src/config/redis-url';
import { createRedisClient, waitForReady, type RedisClient } from '../../src/redis';
import { replicaAcks } from '../../src/session/replica-acks';
import { createRedisSessionStore } from '../../src/session/redis-session-store';
import type { SessionRecord } from '../../src/session/session-store';
import { TEST_REDIS_URL } from '../support/gateway';
import { command } from '../support/redis-processes';
import { startRedisSentinel, type SentinelGroup } from '../support/redis-topologies';

let group: SentinelGroup;
let client: RedisClient;
let replica: { port: number; pid: number };

beforeAll(async () => {
  group = await startRedisSentinel();
  // A command timeout longer than any wait below: on a loaded machine the thaw's timer fires late,
  // and the client's own 500 ms must not cut a WAIT the test is measuring.
  client = createRedisClient({ target: parseRedisTarget(group.url), name: 'replica-acks', commandTimeoutMs: 10_000 });
  expect(await waitForReady(client, 10_000)).toBe(true);
  const [fields = []] = (await command(group.sentinelPorts[0]!, 'SENTINEL', 'REPLICAS', group.masterName)) as string[][];
  const port = Number(fields[fields.indexOf('port') + 1]);
  const pid = Number(/process_id:(\d+)/.exec(String(await command(port, 'INFO', 'server')))?.[1]);
  replica = { port, pid };
}, 30_000);

afterAll(async () => {
  client.disconnect();
  await group.stop();
});

const record = (): SessionRecord => ({ uid: 'user@example.com', environment: 'sandbox', credential: `v1.sealed-${randomUUID()}`, createdAt: Date.now(), absoluteExpiresAt: Date.now() + 3_600_000 });

/** Runs `during` with the replica stopped for `ms` (thawed after that, whatever happens). */
async function withReplicaFrozen<T>(ms: number, during: () => Promise<T>): Promise<T> {
  process.kill(replica.pid, 'SIGSTOP');
  const thaw = new Promise<void>((resolve) => setTimeout(() => {
    process.kill(replica.pid, 'SIGCONT');
    resolve();
  }, ms));
  try {
    return await during();
  } finally {
    await thaw;
  }
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

describe('replica acknowledgement of new sessions', () => {
  it('returns from create() once the replica holds the session', async () => {
    // A bound far above the stall, so that a late thaw on a loaded machine still ends inside it.
    const store = createRedisSessionStore(client, { replicaAckMs: 5_000 });
    const key = `sgw:session:test-${randomUUID()}`;
    // The replica stalls for 150 ms: the write waits for it instead of returning at once.
    const elapsed = await withReplicaFrozen(150, () => timed(() => store.create(key, record(), 60_000)));
    expect(elapsed).toBeGreaterThanOrEqual(120);
    expect(await command(replica.port, 'EXISTS', key)).toBe(1);
  });

  it('waits at most its bound for a replica that does not answer, then not again for a while', async () => {
    const store = createRedisSessionStore(client, { replicaAckMs: 100 });
    // Frozen far longer than the bound (and than a loaded machine's lateness): the first write
    // returns after about the bound, well before the thaw; the next one does not wait at all.
    const [first, second] = await withReplicaFrozen(3_000, async () => [
      await timed(() => store.create(`sgw:session:test-${randomUUID()}`, record(), 60_000)),
      await timed(() => store.create(`sgw:session:test-${randomUUID()}`, record(), 60_000)),
    ]);
    expect(first).toBeGreaterThanOrEqual(90);
    expect(first).toBeLessThan(1_500);
    expect(second).toBeLessThan(300);
  });

  it('waits only where replicas exist: a Sentinel group, never a single server', () => {
    const single = new Redis(TEST_REDIS_URL, { lazyConnect: true });
    try {
      expect(replicaAcks(single, 100).waitMs()).toBe(0);
      expect(replicaAcks(client, 100).waitMs()).toBe(100);
      expect(replicaAcks(client, 0).waitMs()).toBe(0);
    } finally {
      single.disconnect();
    }
  });
});
