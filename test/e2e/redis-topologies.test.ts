/**
 * The topology helpers the scale-out tests stand on (test/support/redis-topologies.ts): a real
 * Cluster and a real Sentinel group start, keys land where the helper says, and a master killed
 * with SIGKILL is replaced by its replica. The failover times are printed: the gateway's own
 * recovery (test/e2e/redis-cluster.test.ts, redis-sentinel.test.ts) cannot be faster.
 */
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { command } from '../support/redis-processes';
import { startRedisCluster, startRedisSentinel, type RedisCluster, type SentinelGroup } from '../support/redis-topologies';

/**
 * A failover's own time is measured and printed, not asserted: on a loaded machine an election can
 * fail once and be retried after the failover timeout.
 */
const FAILOVER_TEST_MS = 45_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Runs `attempt` every 50 ms until it resolves (at most `timeoutMs`); the milliseconds it took. */
async function msUntil(attempt: () => Promise<boolean>, timeoutMs = 20_000, diagnostics: () => string = () => ''): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (await attempt().catch(() => false)) return Date.now() - started;
    await sleep(50);
  }
  throw new Error(`not within ${timeoutMs} ms\n${diagnostics()}`);
}

describe('a local Redis Cluster', () => {
  let cluster: RedisCluster;
  let client: Cluster;
  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1 });
    client = new Cluster(cluster.seeds.map((seed) => ({ host: '127.0.0.1', port: Number(seed.split(':')[1]) })), { redisOptions: { commandTimeout: 1_000 } });
    client.on('error', () => undefined);
  });
  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  it('has three masters serving all 16384 slots, each with a replica', async () => {
    const nodes = await cluster.nodes();
    const masters = nodes.filter((node) => node.role === 'master');
    expect(masters).toHaveLength(3);
    expect(masters.flatMap((node) => node.slots).reduce((sum, [start, end]) => sum + end - start + 1, 0)).toBe(16_384);
    const replicas = nodes.filter((node) => node.role === 'replica');
    expect(replicas.map((node) => node.masterId).sort()).toEqual(masters.map((node) => node.id).sort());
    expect(cluster.url).toBe(`redis+cluster://${cluster.ports.map((port) => `127.0.0.1:${port}`).join(',')}`);
  });

  it('stores a key on the master masterForKey names, and spreads keys over every master', async () => {
    const owners = new Set<number>();
    for (const key of ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta']) {
      await client.set(key, `value of ${key}`);
      const owner = await cluster.masterForKey(key);
      owners.add(owner.port);
      expect(await command(owner.port, 'GET', key)).toBe(`value of ${key}`);
    }
    expect(owners.size).toBe(3);
  });

  it('promotes the replica of a master killed with SIGKILL, and the client follows', async () => {
    const key = 'failover-key';
    await client.set(key, 'before');
    // The write reaches the replica asynchronously; wait for it so that the test is about failover only.
    const victim = await cluster.masterForKey(key);
    const replica = (await cluster.nodes()).find((node) => node.masterId === victim.id);
    if (!replica) throw new Error('the master has no replica');
    const onReplica = new Redis({ host: '127.0.0.1', port: replica.port, lazyConnect: true });
    try {
      await onReplica.readonly();
      await msUntil(async () => (await onReplica.get(key)) === 'before');
    } finally {
      onReplica.disconnect();
    }

    await cluster.kill(victim.port);
    const promotedMs = await msUntil(async () => (await cluster.masterForKey(key)).port === replica.port);
    const clientMs = promotedMs + await msUntil(async () => (await client.get(key)) === 'before' && (await client.set(key, 'after')) === 'OK');
    console.log(`cluster failover: replica promoted ${promotedMs} ms after the SIGKILL, client reading and writing again after ${clientMs} ms`);
    expect(cluster.alive(victim.port)).toBe(false);
    expect(await command(replica.port, 'GET', key)).toBe('after');
  }, FAILOVER_TEST_MS);
});

describe('a local Sentinel group', () => {
  let group: SentinelGroup;
  let client: Redis;
  beforeAll(async () => {
    group = await startRedisSentinel();
    client = new Redis({ sentinels: group.sentinelPorts.map((port) => ({ host: '127.0.0.1', port })), name: group.masterName, commandTimeout: 1_000 });
    client.on('error', () => undefined);
  });
  afterAll(async () => {
    client?.disconnect();
    await group?.stop();
  });

  it('names its sentinels and master in the URL and answers through them', async () => {
    expect(group.url).toBe(`redis+sentinel://${group.sentinelPorts.map((port) => `127.0.0.1:${port}`).join(',')}/mymaster`);
    const master = await group.master();
    expect(master.host).toBe('127.0.0.1');
    expect(String(await command(master.port, 'INFO', 'replication'))).toMatch(/role:master[\s\S]*connected_slaves:1/);
    await client.set('sentinel-key', 'stored');
    expect(await command(master.port, 'GET', 'sentinel-key')).toBe('stored');
  });

  it('promotes the replica when the master is killed with SIGKILL, and the client follows', async () => {
    const before = await group.master();
    // Replication is asynchronous: the key must be on the replica before the master dies, or the
    // promoted replica rightly does not have it (the earlier test's write was sometimes lost so).
    await client.set('sentinel-key', 'stored');
    expect(await client.call('WAIT', '1', '5000')).toBe(1);
    const killed = await group.killMaster();
    expect(killed).toBe(before.port);
    const promotedMs = await msUntil(async () => {
      const now = await group.master();
      return now.port !== killed && /role:master/.test(String(await command(now.port, 'INFO', 'replication')));
    }, 20_000, () => group.logs());
    let lastError = '';
    const clientMs = promotedMs + await msUntil(async () => {
      try {
        return (await client.get('sentinel-key')) === 'stored' && (await client.set('sentinel-key', 'after')) === 'OK';
      } catch (error) {
        lastError = String(error);
        return false;
      }
    }, 20_000, () => `client ${client.status}, last error ${lastError}; killed port ${killed}\n${group.logs()}`);
    console.log(`sentinel failover: replica promoted ${promotedMs} ms after the SIGKILL, client reading and writing again after ${clientMs} ms`);
    expect(await command((await group.master()).port, 'GET', 'sentinel-key')).toBe('after');
  }, FAILOVER_TEST_MS);
});
